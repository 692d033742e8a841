import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiProblem, createClient, type KeyInfo, setUnauthorizedHandler } from "./api.js";
import { AccountPage, OperatorPage } from "./pages/index.js";
import { Link, navigate, useLocation } from "./router.js";
import { storedKey, storeKey } from "./session.js";
import { NOT_ACCEPTED, SignIn, whoIs } from "./signIn.js";
import "./styles.css";
import { permissions, ProblemMessage, SessionContext, type Session } from "./ui.js";

/** The account's pages: the main ones, then Settings with its own navigation (SETTINGS_NAV). */
const NAV: { to: string; label: string; section?: string[] }[] = [
  { to: "/overview", label: "Overview" },
  { to: "/messages", label: "Messages" },
  { to: "/inbox", label: "Inbox" },
  { to: "/contacts", label: "Contacts" },
  { to: "/campaigns", label: "Campaigns" },
  { to: "/settings/webhooks", label: "Settings", section: ["/settings", "/audit-log"] },
];

const SETTINGS_NAV = [
  { to: "/settings/webhooks", label: "Webhooks" },
  { to: "/settings/numbers", label: "Numbers" },
  { to: "/settings/opt-outs", label: "Opt-outs" },
  { to: "/settings/replies", label: "Replies" },
  { to: "/settings/sending", label: "Sending" },
  { to: "/settings/keys", label: "API keys" },
  { to: "/settings/billing", label: "Billing" },
  { to: "/settings/sender-pools", label: "Sender pools" },
  { to: "/audit-log", label: "Audit log" },
];

const OPERATOR_NAV: { to: string; label: string; section?: string[] }[] = [
  { to: "/operator/overview", label: "Overview" },
  { to: "/operator/accounts", label: "Accounts" },
  { to: "/operator/connectors", label: "Connectors" },
  { to: "/operator/routing", label: "Routing" },
  { to: "/operator/price-lists", label: "Price lists" },
  { to: "/operator/unrouted-messages", label: "Unrouted messages" },
  { to: "/operator/audit-log", label: "Audit log" },
];

const within = (path: string, prefixes: string[]) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));

const isOperator = (info: KeyInfo) => info.kind === "operator";
const home = (info: KeyInfo) => (isOperator(info) ? "/operator/overview" : "/overview");
/** Whether `path` is a page of the key's view: the operator's pages are under /operator, the account's elsewhere. */
const fits = (path: string, info: KeyInfo) => path !== "/" && (path === "/operator" || path.startsWith("/operator/")) === isOperator(info);

/** What the key may do, said in words on every page (never by colour alone). */
function KeyNotes({ info }: { info: KeyInfo }) {
  const notes = [
    info.test && "Test key: messages never reach a carrier (they go through the simulator).",
    info.scope === "read" && "Read-only key: you can look at everything here but change nothing.",
    info.scope === "send" && "Send key: you can schedule and cancel messages and campaigns and reply; other changes need a full key.",
  ].filter((note): note is string => !!note);
  if (notes.length === 0) return null;
  return (
    <div class="key-notes">
      {notes.map((note) => (
        <p key={note} class="key-note">
          {note}
        </p>
      ))}
    </div>
  );
}

interface SignedIn {
  apiKey: string;
  /** Who the key is; unknown for a key kept from before a reload until GET /api/v1/key answers. */
  info?: KeyInfo;
}

function App() {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(() => {
    const apiKey = storedKey();
    return apiKey ? { apiKey } : null;
  });
  const [signedOutMessage, setSignedOutMessage] = useState<string | undefined>();
  const [checkError, setCheckError] = useState<ApiProblem | undefined>();
  const [attempt, setAttempt] = useState(0);
  const { path } = useLocation();
  const mainRef = useRef<HTMLElement>(null);

  const signOut = useCallback((message?: string) => {
    storeKey(null);
    setSignedOutMessage(message);
    setCheckError(undefined);
    setSignedIn(null);
  }, []);

  // A key kept from before a reload: ask again who it is (its kind and scope decide what is shown).
  useEffect(() => {
    if (!signedIn || signedIn.info) return;
    let live = true;
    setCheckError(undefined);
    whoIs(signedIn.apiKey).then(
      (info) => live && setSignedIn({ apiKey: signedIn.apiKey, info }),
      (error: ApiProblem) => {
        if (!live) return;
        if (error.status === 401) signOut(NOT_ACCEPTED);
        else setCheckError(error);
      },
    );
    return () => void (live = false);
  }, [signedIn, attempt, signOut]);

  const info = signedIn?.info;
  const session = useMemo<Session | null>(() => {
    if (!signedIn?.info) return null;
    return { client: createClient(signedIn.apiKey), key: signedIn.info, ...permissions(signedIn.info), signOut };
  }, [signedIn, signOut]);

  useEffect(() => {
    setUnauthorizedHandler((problem) => session?.signOut(problem.problem.detail));
  }, [session]);

  // A path of the other view (or "/") goes to the key's home page. After navigating between pages, the page
  // heading takes the focus so keyboard and screen-reader users start at the new content; not on the first
  // page shown after signing in or a reload.
  const lastShown = useRef<string | null>(null);
  useEffect(() => {
    if (!info) {
      lastShown.current = null;
      return;
    }
    if (!fits(path, info)) {
      navigate(home(info), { replace: true });
      return;
    }
    const before = lastShown.current;
    lastShown.current = path;
    if (before !== null && before !== path) mainRef.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [path, info]);

  if (!signedIn) {
    return (
      <SignIn
        message={signedOutMessage}
        onSignedIn={(apiKey, keyInfo) => {
          storeKey(apiKey);
          setSignedOutMessage(undefined);
          setSignedIn({ apiKey, info: keyInfo });
        }}
      />
    );
  }
  if (!session) {
    return (
      <main id="main" class="signin">
        <h1>SMS Platform</h1>
        {checkError ? (
          <div class="card">
            <ProblemMessage error={checkError} prefix="Could not check the API key" />
            <div class="actions">
              <button type="button" class="primary" onClick={() => setAttempt((n) => n + 1)}>
                Try again
              </button>
              <button type="button" onClick={() => signOut()}>
                Sign out
              </button>
            </div>
          </div>
        ) : (
          <p class="muted" role="status">
            Checking the API key…
          </p>
        )}
      </main>
    );
  }
  const operator = isOperator(session.key);
  const nav = operator ? OPERATOR_NAV : NAV;
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{operator ? "SMS Platform · Operator" : "SMS Platform"}</span>
        <nav aria-label="Main">
          <ul>
            {nav.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={within(path, ("section" in item && item.section) || [item.to]) ? "page" : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {!operator && within(path, ["/settings", "/audit-log"]) && (
          <nav aria-label="Settings" class="subnav">
            <ul>
              {SETTINGS_NAV.map((item) => (
                <li key={item.to}>
                  <Link to={item.to} aria-current={within(path, [item.to]) ? "page" : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <button type="button" class="link signout" onClick={() => session.signOut()}>
          Sign out
        </button>
        <KeyNotes info={session.key} />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {fits(path, session.key) && (operator ? <OperatorPage path={path} /> : <AccountPage path={path} />)}
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
