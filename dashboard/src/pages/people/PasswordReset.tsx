// Forgotten passwords (docs/USERS.md, "Passwords"): on the sign-in screen, "Forgot your password?" asks for a
// link by address (the answer is the same for every address); /dashboard/reset#token=… is where the link leads,
// to set a new password (POST /api/v1/users/password-reset/confirm). The token travels in the fragment, which
// no request carries, so it never reaches an access log.
import { useState } from "preact/hooks";
import { createClient, ok } from "../../api.js";
import { Link } from "../../router.js";
import { Field, fieldError, Notice, ProblemMessage, useAction } from "../../ui.js";
import { NewPasswordFields } from "./NewPasswordFields.js";

const typed = (set: (v: string) => void) => (e: { currentTarget: HTMLInputElement }) => set(e.currentTarget.value);

/** The sign-in screen's "Forgot your password?": a link asked for by address. */
export function ForgotPassword() {
  const [email, setEmail] = useState("");
  const [answer, setAnswer] = useState<string | undefined>();
  const ask = useAction(async () => {
    setAnswer((await ok(createClient(null, false).POST("/api/v1/users/password-reset", { body: { email: email.trim() } }))).message);
  });
  return (
    <details class="card">
      <summary>Forgot your password?</summary>
      <form
        aria-label="Ask for a password reset link"
        onSubmit={(e) => {
          e.preventDefault();
          void ask.run();
        }}
      >
        <p class="muted">
          Where this service sends mail, a link to set a new password goes to your address. Otherwise ask an owner or an admin of your
          account for one.
        </p>
        <Field id="forgot-email" label="The address you sign in with" error={fieldError(ask.error, "/body/email")}>
          <input id="forgot-email" type="email" autoComplete="username" required value={email} onInput={typed(setEmail)} />
        </Field>
        {answer && <Notice>{answer}</Notice>}
        <ProblemMessage error={ask.error} />
        <div class="actions">
          <button type="submit" disabled={ask.busy}>
            Send me a link
          </button>
        </div>
      </form>
    </details>
  );
}

/** /dashboard/reset#token=…: a new password with a reset link. */
export function ResetPassword() {
  const [token] = useState(() => new URLSearchParams(location.hash.replace(/^#/, "")).get("token") ?? "");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [done, setDone] = useState(false);
  const mismatch = repeat !== "" && password !== repeat;
  const reset = useAction(async () => {
    if (password !== repeat) return;
    await ok(createClient(null, false).POST("/api/v1/users/password-reset/confirm", { body: { token, password } }));
    // The link is spent: take it out of the address bar and the history.
    history.replaceState(null, "", location.pathname);
    setDone(true);
  });
  return (
    <main id="main" class="signin">
      <h1>SMS Platform</h1>
      {done ? (
        <section class="card" aria-labelledby="reset-done-title">
          <h2 id="reset-done-title">Your new password is set</h2>
          <p>Every session of yours was signed out. Sign in with the new password.</p>
          <p>
            <Link to="/">Go to sign in</Link>
          </p>
        </section>
      ) : (
        <form
          class="card"
          aria-labelledby="reset-title"
          onSubmit={(e) => {
            e.preventDefault();
            void reset.run();
          }}
        >
          <h2 id="reset-title">Set a new password</h2>
          {!token ? (
            <p class="problem" role="alert">
              This link has no reset token. Open the whole link you were given, or ask for a new one.
            </p>
          ) : (
            <>
              <p class="muted" id="reset-help">
                At least 12 characters that you do not use anywhere else; commonly breached passwords are refused. The link works once, for
                an hour.
              </p>
              <NewPasswordFields
                id="reset"
                label="New password"
                repeatLabel="Repeat the password"
                password={password}
                repeat={repeat}
                setPassword={setPassword}
                setRepeat={setRepeat}
                error={fieldError(reset.error, "/body/password")}
                helpId="reset-help"
              />
              <ProblemMessage error={reset.error} />
              <div class="actions">
                <button type="submit" class="primary" disabled={reset.busy || mismatch}>
                  {reset.busy ? "Saving…" : "Set the password"}
                </button>
              </div>
            </>
          )}
        </form>
      )}
    </main>
  );
}
