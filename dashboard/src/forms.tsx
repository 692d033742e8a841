// The forms' one pattern (dashboard/README.md, "Forms"): a labelled field that owns its input, its hint and its
// error wired to the input for a screen reader; and the row that ends a form, what went wrong with the last
// submit above the submit button, which is disabled while the form is being sent.
import type { ComponentChildren, InputHTMLAttributes, Ref, TextareaHTMLAttributes } from "preact";
import type { ApiProblem } from "./api.js";
import { Field, Notice, ProblemMessage } from "./ui.js";

interface OwnedProps {
  id: string;
  label: string;
  hint?: ComponentChildren;
  /** The API's message for this field (fieldError), shown under it. */
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
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
function described(p: OwnedProps & ControlOptions) {
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
    ...described({ ...attributes, id, label, hint, error, value, onValue }),
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
    ...described({ ...attributes, id, label, hint, error, value, onValue }),
    onInput: (e: { currentTarget: HTMLTextAreaElement }) => onValue(e.currentTarget.value),
  };
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <textarea {...control} />
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
