// Your sign-in → Password: the signed-in person changes their own password with the current one. Every other
// session of theirs ends (this one stays), which the notice says.
import { useState } from "preact/hooks";
import { ok } from "../../api.js";
import { Field, fieldError, Notice, ProblemMessage, TitledForm, useAction, useNotice, useSession } from "../../ui.js";
import { NewPasswordFields } from "./NewPasswordFields.js";

const typed = (set: (value: string) => void) => (e: { currentTarget: HTMLInputElement }) => set(e.currentTarget.value);

export function PasswordChange() {
  const { client } = useSession();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [done, setDone] = useNotice();
  const mismatch = repeat !== "" && next !== repeat;
  const change = useAction(async () => {
    if (next !== repeat) return;
    await ok(client.POST("/api/v1/users/me/password", { body: { currentPassword: current, newPassword: next } }));
    setCurrent("");
    setNext("");
    setRepeat("");
    setDone("Your password is changed. Your other sessions are signed out; this one stays signed in.");
  });
  return (
    <TitledForm titleId="password-title" title="Password" onSubmit={() => void change.run()}>
      {done && <Notice>{done}</Notice>}
      <Field id="password-current" label="Current password" error={fieldError(change.error, "/body/currentPassword")}>
        <input id="password-current" type="password" autoComplete="current-password" required value={current} onInput={typed(setCurrent)} />
      </Field>
      <p id="password-help" class="muted">
        At least 12 characters, not a commonly used one: a few words nobody would guess together.
      </p>
      <NewPasswordFields
        id="password-new"
        label="New password"
        repeatLabel="Repeat the new password"
        password={next}
        repeat={repeat}
        setPassword={setNext}
        setRepeat={setRepeat}
        error={fieldError(change.error, "/body/newPassword")}
        helpId="password-help"
      />
      <ProblemMessage error={change.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={change.busy || mismatch}>
          {change.busy ? "Changing…" : "Change the password"}
        </button>
      </div>
    </TitledForm>
  );
}
