import { render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiProblem, createClient, ok, setUnauthorizedHandler } from "./api.js";
import { CampaignDetail } from "./pages/CampaignDetail.js";
import { Campaigns } from "./pages/Campaigns.js";
import { Contacts } from "./pages/contacts/index.js";
import { Conversation } from "./pages/Conversation.js";
import { Inbox } from "./pages/Inbox.js";
import { MessageDetail } from "./pages/MessageDetail.js";
import { Messages } from "./pages/Messages.js";
import { Numbers } from "./pages/Numbers.js";
import { OptOuts } from "./pages/OptOuts.js";
import { Replies } from "./pages/Replies.js";
import { Sending } from "./pages/Sending.js";
import { Webhooks } from "./pages/Webhooks.js";
import { Link, navigate, useLocation } from "./router.js";
import { KEY_FORMAT, storedKey, storeKey } from "./session.js";
import "./styles.css";
import { Field, SessionContext, type Session } from "./ui.js";

const NAV = [
  { to: "/messages", label: "Messages" },
  { to: "/inbox", label: "Inbox" },
  { to: "/contacts", label: "Contacts & groups" },
  { to: "/campaigns", label: "Campaigns" },
  { to: "/settings/webhooks", label: "Settings → Webhooks" },
  { to: "/settings/numbers", label: "Settings → Numbers" },
  { to: "/settings/opt-outs", label: "Settings → Opt-outs" },
  { to: "/settings/replies", label: "Settings → Replies" },
  { to: "/settings/sending", label: "Settings → Sending" },
];

function SignIn({ message, onSignedIn }: { message?: string; onSignedIn: (key: string) => void }) {
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
      // Any authenticated read tells whether the key works; the webhook list is small.
      await ok(createClient(candidate, false).GET("/api/v1/webhooks"));
      onSignedIn(candidate);
    } catch (err) {
      const problem = err as ApiProblem;
      setError(
        problem.status === 401
          ? "This API key was not accepted: it is unknown, revoked or mistyped. Check it and try again."
          : problem.problem.detail,
      );
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
          Paste an API key (<code>npm run keys -- create --account NAME</code> makes one). It is kept in this tab only and sent as a bearer
          token.
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

/** A path segment as typed or linked (a phone's "+" arrives as %2B); a malformed escape stays as it is. */
function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function Page({ path }: { path: string }) {
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "messages" && parts[1]) return <MessageDetail messageId={parts[1]} />;
  if (parts[0] === "messages") return <Messages />;
  if (parts[0] === "contacts") return <Contacts />;
  if (parts[0] === "campaigns" && parts[1]) return <CampaignDetail campaignId={parts[1]} />;
  if (parts[0] === "campaigns") return <Campaigns />;
  if (parts[0] === "inbox") return <Inbox />;
  if (parts[0] === "conversations" && parts[1]) return <Conversation phone={decodePathPart(parts[1])} />;
  if (parts[0] === "settings" && parts[1] === "numbers") return <Numbers />;
  if (parts[0] === "settings" && parts[1] === "opt-outs") return <OptOuts />;
  if (parts[0] === "settings" && parts[1] === "replies") return <Replies />;
  if (parts[0] === "settings" && parts[1] === "sending") return <Sending />;
  if (parts[0] === "settings") return <Webhooks />;
  return (
    <section>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        There is no page here. <Link to="/messages">Go to messages</Link>.
      </p>
    </section>
  );
}

function App() {
  const [apiKey, setApiKey] = useState<string | null>(storedKey);
  const [signedOutMessage, setSignedOutMessage] = useState<string | undefined>();
  const { path } = useLocation();
  const mainRef = useRef<HTMLElement>(null);

  const session = useMemo<Session | null>(() => {
    if (!apiKey) return null;
    return {
      client: createClient(apiKey),
      signOut: (message?: string) => {
        storeKey(null);
        setSignedOutMessage(message);
        setApiKey(null);
      },
    };
  }, [apiKey]);

  useEffect(() => {
    setUnauthorizedHandler((problem) => session?.signOut(problem.problem.detail));
  }, [session]);

  useEffect(() => {
    if (path === "/") navigate("/messages", { replace: true });
  }, [path]);

  // After navigating, focus the page heading so keyboard and screen-reader users start at the new content.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [path]);

  if (!session) {
    return (
      <SignIn
        message={signedOutMessage}
        onSignedIn={(key) => {
          storeKey(key);
          setSignedOutMessage(undefined);
          setApiKey(key);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">SMS Platform</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={path.startsWith(item.to) ? "page" : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="link signout" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <Page path={path} />
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
