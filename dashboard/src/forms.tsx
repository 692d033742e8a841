// The forms' one pattern (dashboard/README.md, "Forms"): a labelled field that owns its input, its hint and its
// error wired to the input for a screen reader; and the row that ends a form, what went wrong with the last
// submit above the submit button, which is disabled while the form is being sent.
import type { ComponentChildren, InputHTMLAttributes, Ref, TextareaHTMLAttributes } from "preact";
import type { ApiProblem } from "./api.js";
import { Field, fieldError, Notice, ProblemMessage } from "./ui.js";

/**
 * A field's state in the props the fields take: its value, its setter, and the API's message for it from the last
 * submit (`path`, e.g. "/body/phone"): `<InputField id="…" label="…" {...bound(phone, setPhone, save.error, "/body/phone")} />`.
 */
export function bound<V extends string>(value: V, onValue: (value: V) => void, error: ApiProblem | undefined, path: string) {
  return { value, onValue: onValue as (value: string) => void, error: fieldError(error, path) };
}

interface OwnedProps<V extends string = string> {
  id: string;
  label: string;
  hint?: ComponentChildren;
  /** The API's message for this field (fieldError), shown under it. */
  error?: string | undefined;
  value: V;
  onValue: (value: V) => void;
}

/** The control's own attributes a form sets (the rest, value, hint and error, are the field's). */
interface ControlOptions {
  required?: boolean;
  readOnly?: boolean;
  disabled?: boolean;
  maxLength?: number;
  name?: string;
  class?: string;
  spellcheck?: boolean;
  placeholder?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  /** Read by a screen reader after the hint and the error (a live count of what was typed). */
  "aria-describedby"?: string;
}

interface InputOptions extends ControlOptions {
  type?: "text" | "number" | "email" | "password" | "tel" | "url" | "search" | "date" | "time" | "datetime-local";
  min?: number | string;
  max?: number | string;
  step?: number | string;
  pattern?: string;
  inputMode?: "text" | "decimal" | "numeric" | "tel" | "email" | "url" | "search";
  ref?: Ref<HTMLInputElement>;
}

interface TextAreaOptions extends ControlOptions {
  rows?: number;
  ref?: Ref<HTMLTextAreaElement>;
}

/** What the control says of itself: its hint and its error, by the ids Field gives them. */
function described(p: Omit<OwnedProps, "onValue"> & ControlOptions) {
  const named = [p.hint ? `${p.id}-hint` : "", p.error ? `${p.id}-error` : "", ...(p["aria-describedby"] ?? "").split(" ")];
  const ids = [...new Set(named.filter(Boolean))].join(" ");
  return { id: p.id, value: p.value, "aria-describedby": ids || undefined, "aria-invalid": p.error ? true : undefined };
}

/** A labelled `<input>` (text unless `type` says), with its hint and error. */
export function InputField({ label, hint, error, onValue, ...rest }: OwnedProps & InputOptions) {
  const { id, value, ...attributes } = rest;
  // The element's props are a union by `type`, which a spread of options cannot be checked against.
  const control = {
    ...attributes,
    ...described({ ...attributes, id, label, hint, error, value }),
    onInput: (e: { currentTarget: HTMLInputElement }) => onValue(e.currentTarget.value),
  } as unknown as InputHTMLAttributes<HTMLInputElement>;
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <input {...control} />
    </Field>
  );
}

/** A labelled `<textarea>`, with its hint and error. */
export function TextAreaField({ label, hint, error, onValue, ...rest }: OwnedProps & TextAreaOptions) {
  const { id, value, ...attributes } = rest;
  const control: TextareaHTMLAttributes<HTMLTextAreaElement> = {
    ...attributes,
    ...described({ ...attributes, id, label, hint, error, value }),
    onInput: (e: { currentTarget: HTMLTextAreaElement }) => onValue(e.currentTarget.value),
  };
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <textarea {...control} />
    </Field>
  );
}

type TextKey<F> = { [K in keyof F]: F[K] extends string ? K : never }[keyof F] & string;

/**
 * `bound` for the text fields of a form kept in one object: `const field = fieldsOf(f, setF, save.error)`, then
 * `<InputField id="…" label="…" {...field("name")} />`; the error is the API's for "/body/name" unless `path` says.
 */
export function fieldsOf<F extends object>(form: F, setForm: (form: F) => void, error: ApiProblem | undefined) {
  return <K extends TextKey<F>>(key: K, path = `/body/${key}`) => ({
    value: form[key] as string,
    onValue: (value: string) => setForm({ ...form, [key]: value }),
    error: fieldError(error, path),
  });
}

/** The `<option>`s of a list of items: each item's value (its key too) and what it is called. */
export function Options<T>({
  items,
  value,
  label,
}: {
  items: readonly T[];
  value: (item: T) => string;
  label: (item: T) => ComponentChildren;
}) {
  return (
    <>
      {items.map((item) => (
        <option key={value(item)} value={value(item)}>
          {label(item)}
        </option>
      ))}
    </>
  );
}

interface SelectOptions extends Pick<ControlOptions, "required" | "disabled" | "name" | "class" | "autoFocus" | "aria-describedby"> {
  /** Label and control on one line (Field's `inline`). */
  inline?: boolean;
  /** The `<option>`s (Options, and any first ones: "All accounts"). */
  children: ComponentChildren;
}

/** A labelled `<select>`, with its hint and error; `onValue` gets the chosen option's value. */
export function SelectField<V extends string>({ label, hint, error, onValue, children, inline, ...rest }: OwnedProps<V> & SelectOptions) {
  const { id, value, ...attributes } = rest;
  return (
    <Field id={id} label={label} hint={hint} error={error} inline={inline}>
      <select
        {...attributes}
        {...described({ ...attributes, id, label, hint, error, value })}
        onChange={(e) => onValue(e.currentTarget.value as V)}
      >
        {children}
      </select>
    </Field>
  );
}

/**
 * The end of a form: the last submit's problem (`failed`, if given, leads it: "Account not created"), then the submit
 * button (`children`, or `busy` while the form is sent) and any other buttons of the form (`more`).
 */
export function SubmitRow({
  action,
  failed,
  busy,
  disabled = false,
  notice,
  more,
  children,
}: {
  action: { busy: boolean; error: ApiProblem | undefined };
  failed?: string;
  busy?: string;
  /** Besides while it is sent: the form is not ready to send (nothing chosen yet). */
  disabled?: boolean;
  /** The outcome of the last submit that went well, between the problem and the buttons. */
  notice?: ComponentChildren;
  more?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <ProblemMessage error={action.error} prefix={failed} />
      {notice && <Notice>{notice}</Notice>}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || disabled}>
          {action.busy && busy ? busy : children}
        </button>
        {more}
      </div>
    </>
  );
}
