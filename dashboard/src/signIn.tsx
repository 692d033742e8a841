// The sign-in screen: a key is checked by asking who it is (GET /api/v1/key), which every key may ask; its
// kind, scope and test flag decide what the dashboard shows (the account view, or the operator view).
import { useState } from "preact/hooks";
import { type ApiProblem, createClient, type KeyInfo, ok } from "./api.js";
import { KEY_FORMAT } from "./session.js";
import { Field } from "./ui.js";

/** Who `key` is; throws the API's problem (401 for an unknown, revoked or expired key). */
export const whoIs = (key: string): Promise<KeyInfo> => ok(createClient(key, false).GET("/api/v1/key"));

export const NOT_ACCEPTED = "This API key was not accepted: it is unknown, revoked, expired or mistyped. Check it and try again.";

export function SignIn({ message, onSignedIn }: { message?: string; onSignedIn: (key: string, info: KeyInfo) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | undefined>(message);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const candidate = key.trim();
    if (!KEY_FORMAT.test(candidate)) {
      setError("That is not an API key: a key looks like sms_ followed by 12 letters or digits, _ and 32 more.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(candidate, await whoIs(candidate));
    } catch (err) {
      const problem = err as ApiProblem;
      setError(problem.status === 401 ? NOT_ACCEPTED : problem.problem.detail);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>SMS Platform</h1>
      <form onSubmit={(e) => void submit(e)} class="card" aria-describedby="signin-help">
        <h2>Sign in</h2>
        <p id="signin-help" class="muted">
          Paste an API key: an account's key (<code>npm run keys -- create --account NAME</code> makes one) opens its account, an operator
          key (<code>--operator NAME</code>) the operator view. It is kept in this tab only and sent as a bearer token.
        </p>
        <Field id="api-key" label="API key" error={error}>
          <input
            id="api-key"
            name="apiKey"
            type="password"
            autoComplete="off"
            // autofocus on purpose: the sign-in screen's one field; its help is read with it (aria-describedby), and keyboard users start typing at once
            autoFocus
            spellcheck={false}
            required
            value={key}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "api-key-error" : undefined}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Checking…" : "Sign in"}
          </button>
        </div>
      </form>
    </main>
  );
}
