// The keys of an account on the operator's page of it: the list, a new key (shown once), revoking one.
import { useState } from "preact/hooks";
import { ok, type CreatedKey, type KeySummary } from "../../api.js";
import { CreateKeyForm, KeyList, NewKey } from "../../keys.js";
import { usePagedList } from "../../paging.js";
import { ConfirmDialog, Notice, useNotice, useSession } from "../../ui.js";

export function AccountKeys({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [revoking, setRevoking] = useState<KeySummary | undefined>();
  const [notice, setNotice] = useNotice();
  const path = { path: { accountId } };
  const list = usePagedList<KeySummary>(
    async (page) => ok(client.GET("/api/v1/accounts/{accountId}/keys", { params: { ...path, query: page } })),
    [accountId],
    50,
  );
  return (
    <section class="card" aria-labelledby="account-keys-title">
      <h2 id="account-keys-title">Keys</h2>
      <KeyList list={list} empty="No keys: nothing can call the API for it." onRevoke={canWrite ? setRevoking : undefined} />
      {notice && <Notice>{notice}</Notice>}
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      {canWrite && (
        <CreateKeyForm
          id="account-key"
          onCreate={async (body) => {
            setNotice(undefined);
            setCreated(await ok(client.POST("/api/v1/accounts/{accountId}/keys", { params: path, body })));
            await list.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={!!revoking}
        title={`Revoke key ${revoking?.name ?? revoking?.keyId ?? ""}?`}
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/accounts/{accountId}/keys/{keyId}", { params: { path: { accountId, keyId: revoking!.keyId } } }));
          setNotice(`Key ${revoking!.name ?? revoking!.keyId} revoked.`);
          list.update((items) => items.filter((k) => k.keyId !== revoking!.keyId));
        }}
      >
        <p>Every program that calls the API with it is refused (401) from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
