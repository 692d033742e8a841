// /dashboard/accept#token=…: accepting an invitation sets the person's password (POST /api/v1/users/accept).
// The token travels in the fragment, which no request carries, so it never reaches an access log. The first
// start's owner link (`&first=1`) also asks for the email address the owner will sign in with.
import { useState } from "preact/hooks";
import { createClient, ok, type User } from "../../api.js";
import { Link } from "../../router.js";
import { Field, fieldError, ProblemMessage, useAction } from "../../ui.js";

const fragment = () => new URLSearchParams(location.hash.replace(/^#/, ""));

export function AcceptInvitation() {
  const [params] = useState(fragment);
  const token = params.get("token") ?? "";
  const first = params.get("first") === "1";
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const [accepted, setAccepted] = useState<User | undefined>();
  const accept = useAction(async () => {
    const body = { token, password, ...(first ? { email: email.trim() } : {}) };
    setAccepted(await ok(createClient(null, false).POST("/api/v1/users/accept", { body })));
    // The token is spent: take it out of the address bar and the history.
    history.replaceState(null, "", location.pathname);
  });
  const err = (path: string) => fieldError(accept.error, path);
  // What was refused is about what was typed then: editing a field takes the refusal away.
  const typed = (set: (v: string) => void) => (e: { currentTarget: HTMLInputElement }) => {
    set(e.currentTarget.value);
    setMismatch(false);
    accept.clearError();
  };
  if (accepted) {
    return (
      <main id="main" class="signin">
        <h1>SMS Platform</h1>
        <section class="card" aria-labelledby="accepted-title">
          <h2 id="accepted-title">Your password is set</h2>
          <p>
            Sign in as <strong>{accepted.email}</strong> ({accepted.role}). Once signed in, turn on two-factor sign-in under{" "}
            <em>Your sign-in</em>.
          </p>
          <p>
            <Link to="/">Go to sign in</Link>
          </p>
        </section>
      </main>
    );
  }
  return (
    <main id="main" class="signin">
      <h1>SMS Platform</h1>
      <form
        class="card"
        aria-labelledby="accept-title"
        onSubmit={(e) => {
          e.preventDefault();
          setMismatch(password !== repeat);
          if (password === repeat) void accept.run();
        }}
      >
        <h2 id="accept-title">{first ? "Make the owner's password" : "Accept the invitation"}</h2>
        {!token ? (
          <p class="problem" role="alert">
            This link has no invitation token. Open the whole link you were given, or ask for a new invitation.
          </p>
        ) : (
          <>
            <p class="muted" id="accept-help">
              Choose a password of at least 12 characters that you do not use anywhere else; commonly breached passwords are refused. A
              phrase of a few unrelated words is easy to type and hard to guess.
            </p>
            {first && (
              <Field id="accept-email" label="Your email address" hint="You sign in with it." error={err("/body/email")}>
                <input
                  id="accept-email"
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  aria-describedby="accept-email-hint"
                  onInput={typed(setEmail)}
                />
              </Field>
            )}
            <Field id="accept-password" label="New password" error={err("/body/password")}>
              <input
                id="accept-password"
                type="password"
                autoComplete="new-password"
                minLength={12}
                required
                value={password}
                aria-describedby="accept-help"
                onInput={typed(setPassword)}
              />
            </Field>
            <Field id="accept-repeat" label="Repeat the password" error={mismatch ? "The two passwords differ." : undefined}>
              <input id="accept-repeat" type="password" autoComplete="new-password" required value={repeat} onInput={typed(setRepeat)} />
            </Field>
            <ProblemMessage error={accept.error} />
            <div class="actions">
              <button type="submit" class="primary" disabled={accept.busy}>
                {accept.busy ? "Saving…" : "Set the password"}
              </button>
            </div>
          </>
        )}
      </form>
    </main>
  );
}
