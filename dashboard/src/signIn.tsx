// The sign-in screen. People sign in with their email address and password (POST /api/v1/session), then the
// code of their authenticator app when they turned two-factor sign-in on (the API answers 401 `totp_required`
// to ask for it). The session is an HttpOnly cookie the browser keeps; the page keeps only its CSRF token.
// Signing in with an API key stays for development: shown when the server says so (keySignInEnabled).
import { useState } from "preact/hooks";
import { type ApiProblem, createClient, type KeyInfo, ok, type SessionInfo } from "./api.js";
import { KEY_FORMAT } from "./session.js";
import { ForgotPassword } from "./pages/people/PasswordReset.js";
import { InputField } from "./forms.js";
import { ProblemMessage } from "./ui.js";

/** Who `key` is; throws the API's problem (401 for an unknown, revoked or expired key). */
export const whoIs = (key: string): Promise<KeyInfo> => ok(createClient({ apiKey: key }, false).GET("/api/v1/key"));

/** The session the browser's cookie holds; throws the API's problem (401 without a live one). */
export const currentSession = (): Promise<SessionInfo> => ok(createClient(null, false).GET("/api/v1/session"));

export const NOT_ACCEPTED = "This API key was not accepted: it is unknown, revoked, expired or mistyped. Check it and try again.";

interface SignInProps {
  message?: string;
  /** Offer the API key sign-in (development; off in production unless the operator enables it). */
  keySignIn: boolean;
  onUser: (session: SessionInfo) => void;
  onKey: (key: string, info: KeyInfo) => void;
}

export function SignIn({ message, keySignIn, onUser, onKey }: SignInProps) {
  return (
    <main id="main" class="signin">
      <h1>SMS Platform</h1>
      <PasswordSignIn message={message} onUser={onUser} />
      <ForgotPassword />
      {keySignIn && (
        <details class="card key-signin">
          <summary>Sign in with an API key (development)</summary>
          <KeySignIn onKey={onKey} />
        </details>
      )}
    </main>
  );
}

function PasswordSignIn({ message, onUser }: { message?: string; onUser: (session: SessionInfo) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  /** The second step: the account asked for a code of the app (or a recovery code). */
  const [needsCode, setNeedsCode] = useState(false);
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<ApiProblem | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const second = !needsCode || !code.trim() ? {} : recovery ? { recoveryCode: code.trim() } : { totp: code.trim() };
    try {
      onUser(await ok(createClient(null, false).POST("/api/v1/session", { body: { email: email.trim(), password, ...second } })));
    } catch (err) {
      const problem = err as ApiProblem;
      if (problem.problem.code === "totp_required" && !needsCode) setNeedsCode(true);
      else if (problem.problem.code === "totp_required") {
        // A code was typed and refused: say so in a person's words (the API's detail speaks to programs).
        const detail = recovery
          ? "That recovery code is wrong or was used already. Each works once: try another."
          : "That code is wrong or was used already. Wait for the next code in your authenticator app and type it.";
        setError({ ...problem, problem: { ...problem.problem, detail } });
        setCode("");
      } else setError(problem);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} class="card" aria-labelledby="signin-title">
      <h2 id="signin-title">Sign in</h2>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {!needsCode ? (
        <>
          <InputField
            id="signin-email"
            label="Email address"
            type="email"
            autoComplete="username"
            autoFocus
            required
            value={email}
            onValue={setEmail}
          />
          <InputField
            id="signin-password"
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onValue={setPassword}
          />
        </>
      ) : (
        <>
          <p id="signin-code-help" class="muted">
            {recovery
              ? "Type one of the recovery codes you were shown when you turned two-factor sign-in on. Each works once."
              : "Type the six-digit code your authenticator app shows for this account."}
          </p>
          <InputField
            id="signin-code"
            label={recovery ? "Recovery code" : "Authentication code"}
            autoFocus
            autoComplete="one-time-code"
            inputMode={recovery ? "text" : "numeric"}
            pattern={recovery ? undefined : "[0-9]{6}"}
            required
            value={code}
            onValue={setCode}
            aria-describedby="signin-code-help"
          />
          <button
            type="button"
            class="link"
            onClick={() => {
              setRecovery(!recovery);
              setCode("");
            }}
          >
            {recovery ? "Use the authenticator app instead" : "Use a recovery code instead"}
          </button>
        </>
      )}
      <ProblemMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {needsCode && (
          <button
            type="button"
            onClick={() => {
              setNeedsCode(false);
              setCode("");
              setError(undefined);
            }}
          >
            Back
          </button>
        )}
      </div>
      <p class="muted">New here? Open the invitation link you were sent: it sets your password.</p>
    </form>
  );
}

function KeySignIn({ onKey }: { onKey: (key: string, info: KeyInfo) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | undefined>();
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
      onKey(candidate, await whoIs(candidate));
    } catch (err) {
      const problem = err as ApiProblem;
      setError(problem.status === 401 ? NOT_ACCEPTED : problem.problem.detail);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-describedby="signin-key-help">
      <p id="signin-key-help" class="muted">
        Paste an API key: an account&apos;s key (<code>npm run keys -- create --account NAME</code> makes one) opens its account, an
        operator key (<code>--operator NAME</code>) the operator view. It is kept in this tab only and sent as a bearer token.
      </p>
      <InputField
        id="api-key"
        label="API key"
        error={error}
        name="apiKey"
        type="password"
        autoComplete="off"
        spellcheck={false}
        required
        value={key}
        aria-invalid={error ? true : undefined}
        onValue={setKey}
        aria-describedby={error ? "api-key-error" : undefined}
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in with the key"}
        </button>
      </div>
    </form>
  );
}
