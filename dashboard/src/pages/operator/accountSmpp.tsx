// The SMPP credentials of an account on the operator's page of it (docs/SMPP.md, "For client applications"):
// the list with each one's open sessions, new credentials (the password shown once), deleting them (their open
// binds are unbound).
import { LoadedRows } from "../../listTable.js";
import { useState } from "preact/hooks";
import { ok } from "../../api.js";
import { SmppCredentialsTable, type SmppCredential } from "../../smppCredentials.js";
import { bound, InputField } from "../../forms.js";
import {
  ConfirmDialog,
  Field,
  fieldError,
  Notice,
  ProblemMessage,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  useSession,
} from "../../ui.js";

export function AccountSmpp({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const [systemId, setSystemId] = useState("");
  const [password, setPassword] = useState("");
  const [maxBinds, setMaxBinds] = useState("4");
  const [rate, setRate] = useState("50");
  /** The credentials just made, with their password: shown this once. */
  const [made, setMade] = useState<{ systemId: string; password: string } | undefined>();
  const [notice, setNotice] = useNotice();
  const [deleting, setDeleting] = useState<SmppCredential | undefined>();
  const path = { path: { accountId } };
  const list = useAsync(
    async () => (await ok(client.GET("/api/v1/accounts/{accountId}/smpp-credentials", { params: path }))).data,
    [accountId],
  );
  const create = useAction(async () => {
    const made = await ok(
      client.POST("/api/v1/accounts/{accountId}/smpp-credentials", {
        params: path,
        body: { systemId: systemId.trim(), password, maxBinds: Number(maxBinds), submitsPerSecond: Number(rate) },
      }),
    );
    setSystemId("");
    setPassword("");
    setNotice(undefined);
    setMade(made);
    await list.reload();
  });
  return (
    <section class="card" aria-labelledby="account-smpp-title">
      <h2 id="account-smpp-title">SMPP credentials</h2>
      <p class="muted">Its SMPP client applications bind to the service&apos;s SMPP port with these.</p>
      <LoadedRows
        list={list}
        loading="SMPP credentials"
        errorPrefix="Could not load the SMPP credentials"
        empty="No SMPP credentials: it reaches the service over HTTP only."
      >
        {(rows) => (
          <SmppCredentialsTable
            items={rows}
            caption="The account's SMPP credentials, oldest first"
            onDelete={canWrite ? setDeleting : undefined}
          />
        )}
      </LoadedRows>
      {notice && <Notice>{notice}</Notice>}
      {made && (
        <Notice>
          SMPP credentials {made.systemId} made. Hand the password over now, it is not shown again:{" "}
          <code data-testid="smpp-password-once">{made.password}</code>
        </Notice>
      )}
      {canWrite && (
        <TitledForm titleId="create-smpp-title" title="Give SMPP credentials" heading="h3" plain onSubmit={() => void create.run()}>
          <div class="grid-2">
            <InputField
              id="smpp-system-id"
              label="system_id"
              hint="1 to 15 characters, unique in the service"
              maxLength={15}
              required
              {...bound(systemId, setSystemId, create.error, "/body/systemId")}
            />
            <Field
              id="smpp-password"
              label="Password"
              hint="1 to 8 characters (SMPP 3.4's limit); shown only now"
              error={fieldError(create.error, "/body/password")}
            >
              {/* No maxLength: a longer password is refused by the server with its reason, never cut short unseen. */}
              <input id="smpp-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            </Field>
            <InputField
              id="smpp-max-binds"
              label="Binds at once"
              type="number"
              min={1}
              max={20}
              {...bound(maxBinds, setMaxBinds, create.error, "/body/maxBinds")}
            />
            <InputField
              id="smpp-rate"
              label="Submits a second per bind"
              type="number"
              min={1}
              {...bound(rate, setRate, create.error, "/body/submitsPerSecond")}
            />
          </div>
          <ProblemMessage error={create.error} prefix="Could not make the SMPP credentials" />
          <button type="submit" disabled={create.busy}>
            Give SMPP credentials
          </button>
        </TitledForm>
      )}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete SMPP credentials ${deleting?.systemId ?? ""}?`}
        confirmLabel="Delete credentials"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(
            client.DELETE("/api/v1/accounts/{accountId}/smpp-credentials/{systemId}", {
              params: { path: { accountId, systemId: deleting!.systemId } },
            }),
          );
          setMade(undefined);
          setNotice(`SMPP credentials ${deleting!.systemId} deleted; their open binds are unbound.`);
          await list.reload();
        }}
      >
        <p>Its applications bound with them are unbound within a second, and cannot bind again.</p>
      </ConfirmDialog>
    </section>
  );
}
