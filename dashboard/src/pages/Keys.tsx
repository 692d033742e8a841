// Settings → API keys: the account's keys (the one signed in with marked), making one (its secret shown this
// once) and revoking one; a key cannot revoke itself. A key that may not change things sees the list alone.
// Below them, the SMPP credentials the operator gave the account, with their open sessions (read only).
import { LoadedRows } from "../listTable.js";
import { useState } from "preact/hooks";
import { ok, type CreatedKey, type KeySummary } from "../api.js";
import { CreateKeyForm, KeyList, NewKey } from "../keys.js";
import { usePagedList } from "../paging.js";
import { ConfirmDialog, Notice, useAsync, useNotice, useSession, ToggledPanel } from "../ui.js";
import { SmppCredentialsTable } from "../smppCredentials.js";
import { QuotaNote } from "../usage.js";

export function Keys() {
  const { client, key, canWrite } = useSession();
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [revoking, setRevoking] = useState<KeySummary | undefined>();
  const [notice, setNotice] = useNotice();
  const [creating, setCreating] = useState(false);
  const list = usePagedList<KeySummary>(async (page) => ok(client.GET("/api/v1/keys", { params: { query: page } })), [], 50);
  return (
    <section>
      <h1 tabIndex={-1}>Settings → API keys</h1>
      <p class="muted">
        The keys that call the API for this account. A key's scope limits what it may do: <strong>full</strong> everything,{" "}
        <strong>send</strong> reading plus scheduling and cancelling messages and campaigns, <strong>read</strong> looking only. A test
        key's messages go through the simulator and never reach a carrier.
      </p>
      <QuotaNote />
      {canWrite && (
        <>
          <ToggledPanel label="New key" id="create-key-panel" open={creating} onToggle={setCreating}>
            <CreateKeyForm
              id="create-key"
              testOnly={key.test}
              onCreate={async (body) => {
                setNotice(undefined);
                setCreated(await ok(client.POST("/api/v1/keys", { body })));
                await list.reload();
              }}
            />
          </ToggledPanel>
        </>
      )}
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      {notice && <Notice>{notice}</Notice>}
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <KeyList list={list} empty="No keys." currentKeyId={key.keyId} onRevoke={canWrite ? setRevoking : undefined} />
      </section>
      <OwnSmppCredentials />
      <ConfirmDialog
        open={!!revoking}
        title={`Revoke key ${revoking?.name ?? revoking?.keyId ?? ""}?`}
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/keys/{keyId}", { params: { path: { keyId: revoking!.keyId } } }));
          setNotice(`Key ${revoking!.name ?? revoking!.keyId} revoked: it is refused from now on.`);
          list.update((items) => items.filter((k) => k.keyId !== revoking!.keyId));
        }}
      >
        <p>Every program that calls the API with it is refused (401) from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The account's SMPP credentials and open sessions; only the operator makes and changes them. */
function OwnSmppCredentials() {
  const { client } = useSession();
  const list = useAsync(async () => (await ok(client.GET("/api/v1/smpp-credentials"))).data, []);
  return (
    <section class="card" aria-labelledby="own-smpp-title">
      <h2 id="own-smpp-title">SMPP credentials</h2>
      <p class="muted">
        Applications that speak SMPP bind to the service&apos;s SMPP port with these; the operator gives and changes them.
      </p>
      <LoadedRows
        list={list}
        loading="SMPP credentials"
        errorPrefix="Could not load the SMPP credentials"
        empty="None: this account reaches the service over HTTP only."
      >
        {(rows) => <SmppCredentialsTable items={rows} caption="This account's SMPP credentials, oldest first" />}
      </LoadedRows>
    </section>
  );
}
