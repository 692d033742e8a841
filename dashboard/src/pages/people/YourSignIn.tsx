// Your sign-in: the signed-in person's two-factor sign-in (turning it on with an authenticator app, whose
// recovery codes are shown this once, or off), their password (PasswordChange.tsx) and their sessions (signing
// out everywhere). A key has none of them.
import { useRef, useState } from "preact/hooks";
import { renderSVG } from "uqr";
import { ok, type SessionInfo } from "../../api.js";
import { formatTime } from "../../time.js";
import { PasswordChange } from "./PasswordChange.js";
import { bound, InputField, SubmitRow } from "../../forms.js";
import { Loading, Notice, ProblemMessage, saveFile, TitledForm, useAction, useAsync, useCopy, useSession } from "../../ui.js";

export function YourSignIn() {
  const { key } = useSession();
  const user = key.user;
  return (
    <section>
      <h1 tabIndex={-1}>Your sign-in</h1>
      {!user ? (
        <p>You are signed in with an API key: it has no password, second factor or sessions. People sign in with their email address.</p>
      ) : (
        <>
          <p class="muted">
            Signed in as <strong>{user.email}</strong> ({user.role}).
          </p>
          <TwoFactor user={user} />
          <PasswordChange />
          <Sessions />
        </>
      )}
    </section>
  );
}

/** The QR code of an `otpauth://` URL, as an image (the page's policy allows data: images, not inline SVG styles). */
function QrCode({ url }: { url: string }) {
  const svg = renderSVG(url, { border: 2 });
  return <img class="qr" width={200} height={200} src={`data:image/svg+xml;base64,${btoa(svg)}`} alt="QR code of the secret below" />;
}

function TwoFactor({ user }: { user: SessionInfo }) {
  const { client, refresh } = useSession();
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string } | undefined>();
  const [codes, setCodes] = useState<string[] | undefined>();
  const [code, setCode] = useState("");
  const begin = useAction(async () => setSetup(await ok(client.POST("/api/v1/users/me/two-factor"))));
  const confirm = useAction(async () => {
    setCodes((await ok(client.POST("/api/v1/users/me/two-factor/confirm", { body: { code: code.trim() } }))).recoveryCodes);
    setSetup(undefined);
    setCode("");
  });
  const disable = useAction(async () => {
    await ok(client.POST("/api/v1/users/me/two-factor/disable", { body: { code: code.trim() } }));
    setCode("");
    await refresh();
  });
  if (codes) return <RecoveryCodes codes={codes} email={user.email} onDone={() => void refresh().then(() => setCodes(undefined))} />;
  if (user.twoFactor) {
    return (
      <TitledForm titleId="two-factor-title" title="Two-factor sign-in: on" onSubmit={() => void disable.run()}>
        <p>You sign in with your password and a code of your authenticator app.</p>
        {user.twoFactorRequired || (
          <>
            <InputField
              id="disable-code"
              label="Code of the app, or a recovery code, to turn it off"
              autoComplete="one-time-code"
              required
              {...bound(code, setCode, disable.error, "/body/code")}
            />
            <ProblemMessage error={disable.error} />
            <div class="actions">
              <button type="submit" class="danger" disabled={disable.busy}>
                Turn two-factor sign-in off
              </button>
            </div>
          </>
        )}
      </TitledForm>
    );
  }
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in: off</h2>
      {user.twoFactorRequired && (
        <Notice kind="info">
          This account requires two-factor sign-in: turn it on to use the dashboard. Until then this page is the only one open to you.
        </Notice>
      )}
      {!setup ? (
        <>
          <p>Sign in with a code of an authenticator app besides your password, so a stolen password alone opens nothing.</p>
          <ProblemMessage error={begin.error} />
          <button type="button" class="primary" disabled={begin.busy} onClick={() => void begin.run()}>
            Turn on two-factor sign-in
          </button>
        </>
      ) : (
        <TitledForm
          titleId="confirm-title"
          heading="h3"
          plain
          title="Add this account to your authenticator app"
          onSubmit={() => void confirm.run()}
        >
          <p>Scan the code with the app, or type the secret into it, then type the six digits it shows.</p>
          <QrCode url={setup.otpauthUrl} />
          <p>
            Secret: <code class="secret-value">{setup.secret}</code>
          </p>
          <InputField
            id="confirm-code"
            label="Code shown by the app"
            autoComplete="one-time-code"
            inputMode="numeric"
            pattern="[0-9]{6}"
            required
            {...bound(code, setCode, confirm.error, "/body/code")}
          />
          <SubmitRow action={confirm}>Turn it on</SubmitRow>
        </TitledForm>
      )}
    </section>
  );
}

function Sessions() {
  const { client, signOut } = useSession();
  const list = useAsync(async () => (await ok(client.GET("/api/v1/sessions"))).data, []);
  const everywhere = useAction(async () => {
    await ok(client.DELETE("/api/v1/sessions"));
    signOut("You signed out everywhere: every session of yours has ended.");
  });
  // One session ended (a lost or shared device): the list reads again without it.
  const end = useAction(async (sessionId: string) => {
    await ok(client.DELETE("/api/v1/sessions/{sessionId}", { params: { path: { sessionId } } }));
    await list.reload();
  });
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      {list.loading && !list.data && <Loading what="sessions" />}
      <ProblemMessage error={list.error} prefix="Could not load your sessions" />
      {list.data && (
        <table>
          <caption class="sr-only">Your sessions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">Browser</th>
              <th scope="col">Address</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr key={s.sessionId}>
                <td>
                  {formatTime(s.createdAt)}
                  {s.current && <span class="muted"> (this one)</span>}
                </td>
                <td>{formatTime(s.lastSeenAt)}</td>
                <td title={s.userAgent ?? undefined}>{s.device ?? "—"}</td>
                <td>{s.address ?? "—"}</td>
                <td>
                  {!s.current && (
                    <button type="button" disabled={end.busy} onClick={() => void end.run(s.sessionId)}>
                      End this session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ProblemMessage error={end.error ?? everywhere.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={everywhere.busy} onClick={() => void everywhere.run()}>
          Sign out everywhere
        </button>
      </div>
    </section>
  );
}

/** The recovery codes, shown this once: copied to the clipboard or saved as a text file, one code a line. */
function RecoveryCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const list = useRef<HTMLUListElement>(null);
  const copied = useCopy();
  const text = `Recovery codes for ${email} (SMS Platform). Each signs you in once without the app.\n\n${codes.join("\n")}\n`;
  return (
    <section class="card new-key" aria-labelledby="codes-title">
      <h2 id="codes-title">Two-factor sign-in is on: your recovery codes</h2>
      <p>
        <strong>Store these now: they are shown this once.</strong> Each signs you in once without the app, if you lose your phone.
      </p>
      <ul class="recovery-codes" aria-label="Recovery codes" ref={list}>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            copied.copy(codes.join("\n"), list.current, {
              done: "Recovery codes copied to the clipboard.",
              failed: "Could not copy: select the codes and copy them.",
            })
          }
        >
          Copy the codes
        </button>
        <button type="button" onClick={() => saveFile(new Blob([text], { type: "text/plain" }), "recovery-codes.txt")}>
          Download the codes
        </button>
        <button type="button" class="primary" onClick={onDone}>
          I have stored them
        </button>
      </div>
      <p class="muted" role="status">
        {copied.said}
      </p>
    </section>
  );
}
