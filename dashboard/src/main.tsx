import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiProblem, createClient, type KeyInfo, type SessionInfo, setUnauthorizedHandler } from "./api.js";
import { AccountPage, OperatorPage } from "./pages/index.js";
import { AcceptInvitation } from "./pages/people/Accept.js";
import { ResetPassword } from "./pages/people/PasswordReset.js";
import { YourSignIn } from "./pages/people/YourSignIn.js";
import { Link, navigate, useLocation } from "./router.js";
import { hintSession, keySignInEnabled, sessionHinted, storedKey, storeKey } from "./session.js";
import { currentSession, NOT_ACCEPTED, SignIn, whoIs } from "./signIn.js";
import "./styles.css";
import { type Identity, keyIdentity, NoticeArea, permissions, ProblemMessage, SessionContext, type Session, userIdentity } from "./ui.js";

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
  { to: "/settings/templates", label: "Templates" },
  { to: "/settings/sending", label: "Sending" },
  { to: "/settings/keys", label: "API keys" },
  { to: "/settings/users", label: "Users" },
  { to: "/settings/your-sign-in", label: "Your sign-in" },
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
  { to: "/operator/users", label: "Users" },
  { to: "/operator/your-sign-in", label: "Your sign-in" },
];

const within = (path: string, prefixes: string[]) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));

const isOperator = (who: Identity) => who.kind === "operator";
const home = (who: Identity) => (isOperator(who) ? "/operator/overview" : "/overview");
/** Whether `path` is a page of the view: the operator's pages are under /operator, the account's elsewhere. */
const fits = (path: string, who: Identity) => path !== "/" && (path === "/operator" || path.startsWith("/operator/")) === isOperator(who);
/** A person whose account requires two-factor sign-in, without it yet: only Your sign-in is open to them. */
const mustTurnOnTwoFactor = (who: Identity) => !!who.user && who.user.twoFactorRequired && !who.user.twoFactor;
const yourSignIn = (who: Identity) => (isOperator(who) ? "/operator/your-sign-in" : "/settings/your-sign-in");

/** What the signed-in key or person may do, said in words on every page (never by colour alone). */
function KeyNotes({ who }: { who: Identity }) {
  const person = !!who.user;
  const notes = [
    who.test && "Test key: messages never reach a carrier (they go through the simulator).",
    who.scope === "read" &&
      (person
        ? "Viewer: you can look at everything here but change nothing."
        : "Read-only key: you can look at everything here but change nothing."),
    who.scope === "send" && "Send key: you can schedule and cancel messages and campaigns and reply; other changes need a full key.",
    who.user?.role === "auditor" && "Auditor: you can look at everything in the operator console but change nothing.",
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

/** Signed in with a key (development), or as a person; `info`/`user` unknown after a reload until the API answers. */
type SignedIn = { via: "key"; apiKey: string; info?: KeyInfo } | { via: "user"; user?: SessionInfo };

function initialSignIn(): SignedIn | null {
  const apiKey = storedKey();
  if (apiKey) return { via: "key", apiKey };
  return sessionHinted() ? { via: "user" } : null;
}

function App() {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(initialSignIn);
  const [signedOutMessage, setSignedOutMessage] = useState<string | undefined>();
  const [checkError, setCheckError] = useState<ApiProblem | undefined>();
  const [attempt, setAttempt] = useState(0);
  const { path } = useLocation();
  const mainRef = useRef<HTMLElement>(null);

  const signOut = useCallback(
    (message?: string) => {
      // A person's sign-out ends the session on the server too (unless it has ended already: the message says so).
      if (signedIn?.via === "user" && signedIn.user && !message) {
        void createClient({ csrfToken: signedIn.user.csrfToken }, false).DELETE("/api/v1/session");
      }
      storeKey(null);
      hintSession(false);
      setSignedOutMessage(message);
      setCheckError(undefined);
      setSignedIn(null);
    },
    [signedIn],
  );

  // After a reload: ask again who the key or the session is (its kind and scope or role decide what is shown).
  useEffect(() => {
    if (!signedIn || (signedIn.via === "key" ? signedIn.info : signedIn.user)) return;
    let live = true;
    setCheckError(undefined);
    const check: Promise<SignedIn> =
      signedIn.via === "key"
        ? whoIs(signedIn.apiKey).then((info) => ({ via: "key", apiKey: signedIn.apiKey, info }))
        : currentSession().then((user) => ({ via: "user", user }));
    check.then(
      (known) => live && setSignedIn(known),
      (error: ApiProblem) => {
        if (!live) return;
        if (error.status === 401) signOut(signedIn.via === "key" ? NOT_ACCEPTED : "Your session has ended: sign in again.");
        else setCheckError(error);
      },
    );
    return () => void (live = false);
  }, [signedIn, attempt, signOut]);

  const session = useMemo<Session | null>(() => {
    if (signedIn?.via === "key" && signedIn.info) {
      const key = keyIdentity(signedIn.info);
      return { client: createClient({ apiKey: signedIn.apiKey }), key, ...permissions(key), signOut, refresh: async () => {} };
    }
    if (signedIn?.via === "user" && signedIn.user) {
      const key = userIdentity(signedIn.user);
      const refresh = async () => setSignedIn({ via: "user", user: await currentSession() });
      return { client: createClient({ csrfToken: signedIn.user.csrfToken }), key, ...permissions(key), signOut, refresh };
    }
    return null;
  }, [signedIn, signOut]);
  const who = session?.key;

  useEffect(() => {
    setUnauthorizedHandler((problem) => session?.signOut(problem.problem.detail));
  }, [session]);

  // A path of the other view (or "/") goes to the home page. After navigating between pages, the page heading
  // takes the focus so keyboard and screen-reader users start at the new content; not on the first page shown
  // after signing in or a reload.
  const lastShown = useRef<string | null>(null);
  useEffect(() => {
    if (!who || path === "/accept" || path === "/reset") {
      lastShown.current = null;
      return;
    }
    if (mustTurnOnTwoFactor(who) && path !== yourSignIn(who)) {
      navigate(yourSignIn(who), { replace: true });
      return;
    }
    if (!fits(path, who)) {
      navigate(home(who), { replace: true });
      return;
    }
    const before = lastShown.current;
    lastShown.current = path;
    if (before !== null && before !== path) mainRef.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [path, who]);

  // An invitation's link opens its page whoever is signed in (the token is in the fragment).
  if (path === "/accept") return <AcceptInvitation />;
  // A password reset link's page, likewise.
  if (path === "/reset") return <ResetPassword />;
  if (!signedIn) {
    return (
      <SignIn
        message={signedOutMessage}
        keySignIn={keySignInEnabled()}
        onKey={(apiKey, info) => {
          storeKey(apiKey);
          setSignedOutMessage(undefined);
          setSignedIn({ via: "key", apiKey, info });
        }}
        onUser={(user) => {
          hintSession(true);
          setSignedOutMessage(undefined);
          setSignedIn({ via: "user", user });
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
            <ProblemMessage
              error={checkError}
              prefix={signedIn.via === "key" ? "Could not check the API key" : "Could not check your session"}
            />
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
            {signedIn.via === "key" ? "Checking the API key…" : "Checking your session…"}
          </p>
        )}
      </main>
    );
  }
  const operator = isOperator(session.key);
  const locked = mustTurnOnTwoFactor(session.key);
  const nav = locked ? [] : operator ? OPERATOR_NAV : NAV;
  const user = session.key.user;
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{operator ? "SMS Platform · Operator" : "SMS Platform"}</span>
        {nav.length > 0 && (
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
        )}
        {!operator && !locked && within(path, ["/settings", "/audit-log"]) && (
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
        {user && (
          <span class="signed-in-as">
            {user.email} ({user.role})
          </span>
        )}
        <button type="button" class="link signout" onClick={() => session.signOut()}>
          Sign out
        </button>
        <KeyNotes who={session.key} />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <NoticeArea page={path}>
          {locked
            ? path === yourSignIn(session.key) && <YourSignIn />
            : fits(path, session.key) && (operator ? <OperatorPage path={path} /> : <AccountPage path={path} />)}
        </NoticeArea>
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
