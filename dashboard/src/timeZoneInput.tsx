// An IANA time zone name, typed with the browser's zones as suggestions (the server decides what it knows).
import type { Ref } from "preact";

/** The zones the browser knows (any IANA name may still be typed). */
const ZONES: string[] = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

export function TimeZoneInput({
  id,
  value,
  onInput,
  required = false,
  describedBy,
  inputRef,
}: {
  id: string;
  value: string;
  onInput: (zone: string) => void;
  required?: boolean;
  describedBy?: string;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <>
      <input
        id={id}
        required={required}
        list={`${id}-zones`}
        autoComplete="off"
        placeholder="e.g. America/Los_Angeles"
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-describedby={describedBy}
        ref={inputRef}
      />
      <datalist id={`${id}-zones`}>
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </>
  );
}
