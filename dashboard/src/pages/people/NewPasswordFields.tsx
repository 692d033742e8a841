// A new password typed twice, as every form that sets one asks for it (Your sign-in → Password, the reset link's
// page): at least 12 characters in the browser, the server's judgement at the first field, a mismatch at the second.
import { Field } from "../../ui.js";

const typed = (set: (v: string) => void) => (e: { currentTarget: HTMLInputElement }) => set(e.currentTarget.value);

export function NewPasswordFields(props: {
  id: string;
  label: string;
  repeatLabel: string;
  password: string;
  repeat: string;
  setPassword: (v: string) => void;
  setRepeat: (v: string) => void;
  /** The server's refusal of the password, if any. */
  error: string | undefined;
  /** The id of the text that says what a password must be. */
  helpId: string;
}) {
  const mismatch = props.repeat !== "" && props.password !== props.repeat;
  return (
    <>
      <Field id={`${props.id}-password`} label={props.label} error={props.error}>
        <input
          id={`${props.id}-password`}
          type="password"
          autoComplete="new-password"
          minLength={12}
          required
          value={props.password}
          aria-describedby={props.helpId}
          onInput={typed(props.setPassword)}
        />
      </Field>
      <Field id={`${props.id}-repeat`} label={props.repeatLabel} error={mismatch ? "The two passwords differ." : undefined}>
        <input
          id={`${props.id}-repeat`}
          type="password"
          autoComplete="new-password"
          required
          value={props.repeat}
          onInput={typed(props.setRepeat)}
        />
      </Field>
    </>
  );
}
