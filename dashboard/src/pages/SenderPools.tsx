// Settings → Sender pools: senders a message may go out as, chosen when it is sent (sticky, the recipient's
// country, least recently used), each within its cap. Make one, list them, delete one.
import { useState } from "preact/hooks";
import { ok, type Schemas } from "../api.js";
import { formatTime } from "../time.js";
import { ListTable, LoadedRows } from "../listTable.js";
import { bound, InputField, SubmitRow, TextAreaField } from "../forms.js";
import { ConfirmDialog, Notice, TitledForm, useAction, useAsync, useNotice, useSession } from "../ui.js";

type SenderPool = Schemas["SenderPool"];

export function SenderPools() {
  const { client, canWrite } = useSession();
  const [name, setName] = useState("");
  const [senders, setSenders] = useState("");
  const [sticky, setSticky] = useState(true);
  const [cap, setCap] = useState("");
  const [notice, setNotice] = useNotice();
  const [deleting, setDeleting] = useState<SenderPool | undefined>();
  const pools = useAsync(async () => (await ok(client.GET("/api/v1/sender-pools"))).data, []);
  const create = useAction(async () => {
    const list = senders
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const created = await ok(
      client.POST("/api/v1/sender-pools", {
        body: { name: name.trim(), senders: list, sticky, maxMessagesPerSecondPerSender: cap.trim() ? Number(cap) : null },
      }),
    );
    setName("");
    setSenders("");
    setCap("");
    setNotice(`Sender pool “${created.name}” made: give senderPoolId ${created.senderPoolId} instead of from.`);
    await pools.reload();
  });
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Sender pools</h1>
      <p class="muted">
        A pool&apos;s sender is chosen when a message is sent: the one the recipient last got from this account (when the pool is sticky),
        else one of the recipient&apos;s country, else the least recently used, each within its cap. Send with <code>senderPoolId</code> in
        place of <code>from</code>.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <LoadedRows list={pools} loading="sender pools" errorPrefix="Could not load the sender pools" empty="No sender pools yet.">
        {(rows) => (
          <ListTable
            caption="Sender pools, oldest first"
            rows={rows}
            rowKey={(p) => p.senderPoolId}
            rowAttributes={(p) => ({ "data-pool": p.name })}
            columns={[
              { label: "Name", cell: (p) => p.name },
              { label: "Senders", cell: (p) => p.senders.join(", ") },
              { label: "Sticky", cell: (p) => (p.sticky ? "yes" : "no") },
              {
                label: "Cap per sender",
                cell: (p) => (p.maxMessagesPerSecondPerSender === null ? "none" : `${p.maxMessagesPerSecondPerSender} a second`),
              },
              { label: "Made", cell: (p) => formatTime(p.createdAt) },
            ]}
            actions={
              canWrite
                ? (p) => (
                    <button type="button" class="danger small" onClick={() => setDeleting(p)} aria-label={`Delete sender pool ${p.name}`}>
                      Delete
                    </button>
                  )
                : undefined
            }
          />
        )}
      </LoadedRows>
      {canWrite && (
        <TitledForm titleId="new-pool-title" title="Make a sender pool" onSubmit={() => void create.run()}>
          <div class="grid-2">
            <InputField id="pool-name" label="Pool name" required maxLength={64} {...bound(name, setName, create.error, "/body/name")} />
            <InputField
              id="pool-cap"
              label="Messages a second per sender (optional)"
              hint="Empty: no cap"
              type="number"
              min={1}
              {...bound(cap, setCap, create.error, "/body/maxMessagesPerSecondPerSender")}
            />
          </div>
          <TextAreaField
            id="pool-senders"
            label="Senders"
            hint="Numbers this account holds (+14155550101) or its sender IDs, one per line"
            required
            rows={4}
            {...bound(senders, setSenders, create.error, "/body/senders")}
          />
          <label class="inline">
            <input type="checkbox" checked={sticky} onChange={(e) => setSticky(e.currentTarget.checked)} /> Sticky: a recipient keeps the
            sender it last got
          </label>
          <SubmitRow action={create} failed="Sender pool not made">
            Create sender pool
          </SubmitRow>
        </TitledForm>
      )}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete sender pool ${deleting?.name ?? ""}?`}
        confirmLabel="Delete sender pool"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/sender-pools/{senderPoolId}", { params: { path: { senderPoolId: deleting!.senderPoolId } } }));
          setNotice(`Sender pool “${deleting!.name}” deleted.`);
          await pools.reload();
        }}
      >
        <p>Messages that already have their sender keep it; those still waiting for one fail with sender_pool_deleted.</p>
      </ConfirmDialog>
    </section>
  );
}
