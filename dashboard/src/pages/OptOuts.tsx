// Settings → Opt-outs: the numbers the account sends nothing to, how each got there (a keyword or by hand), add
// one, remove one.
import { useState } from "preact/hooks";
import { ok, type OptOut } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { ListTable, OrDash } from "../listTable.js";
import { Link } from "../router.js";
import { formatTime } from "../time.js";
import { bound, SubmitRow } from "../forms.js";
import { ConfirmDialog, FormPanel, FormToggle, Notice, PhoneField, TitledForm, useAction, useNotice, useSession } from "../ui.js";
import { conversationPath } from "./Inbox.js";
import { ExportButton, OptOutImport } from "../exports.js";
import { Person, useContactNames } from "../contactNames.js";

export function OptOuts() {
  const { client, canWrite } = useSession();
  const [phone, setPhone] = useState("");
  const [notice, setNotice] = useNotice();
  const [removing, setRemoving] = useState<OptOut | undefined>();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const list = usePagedList<OptOut>(async (page) => ok(client.GET("/api/v1/opt-outs", { params: { query: page } })), [], 50);
  const names = useContactNames(list.items?.map((o) => o.phone) ?? []);
  const add = useAction(async () => {
    const entry = await ok(client.PUT("/api/v1/opt-outs/{phone}", { params: { path: { phone } } }));
    setPhone("");
    setNotice(`${entry.phone} is on the opt-out list: it is sent nothing more.`);
    await list.reload();
  });
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Opt-outs</h1>
      <p class="muted">
        Numbers on this list receive nothing from the account: scheduling to them is refused, campaigns skip them, and messages scheduled
        before are not sent. A person joins it by texting STOP (or a similar keyword) to one of the account's numbers and leaves it by
        texting START.
      </p>
      <div class="toolbar">
        {canWrite && (
          <>
            <FormToggle label="Add a number" panelId="new-opt-out-panel" open={adding} onToggle={setAdding} />
            <FormToggle label="Import a file" panelId="opt-out-import-panel" open={importing} onToggle={setImporting} />
          </>
        )}
        <ExportButton path="/api/v1/exports/opt-outs" label="Export the list (CSV)" />
      </div>
      {canWrite && (
        <>
          <FormPanel id="new-opt-out-panel" open={adding}>
            <TitledForm titleId="new-opt-out-title" title="Add a number" onSubmit={() => void add.run()}>
              <PhoneField
                id="opt-out-phone"
                hint="With its +country prefix; for someone who asked by other means (a call, an email)"
                {...bound(phone, setPhone, add.error, "/path/phone")}
              />
              <SubmitRow action={add} failed="Not added">
                Add to the opt-out list
              </SubmitRow>
            </TitledForm>
          </FormPanel>
          <FormPanel id="opt-out-import-panel" open={importing}>
            <OptOutImport onDone={list.reload} />
          </FormPanel>
        </>
      )}
      {notice && <Notice>{notice}</Notice>}
      <PagedRows list={list} noun="opt-outs" one="opt-out" errorPrefix="Could not load the opt-out list" empty="Nobody has opted out.">
        {(items) => (
          <ListTable
            rows={items}
            bodyRef={list.rowsRef}
            rowKey={(o) => o.phone}
            rowAttributes={(o) => ({ "data-phone": o.phone })}
            columns={[
              {
                label: "Number",
                cell: (o) => (
                  <Link
                    to={conversationPath(o.phone)}
                    aria-label={`Conversation with ${o.phone}${names.has(o.phone) ? ` (${names.get(o.phone)!})` : ""}`}
                  >
                    <Person phone={o.phone} names={names} />
                  </Link>
                ),
              },
              { label: "Source", cell: (o) => (o.source === "keyword" ? "keyword" : "added by hand (API)") },
              { label: "Keyword", cell: (o) => <OrDash value={o.keyword} /> },
              { label: "Since", cell: (o) => formatTime(o.createdAt) },
            ]}
            actions={
              canWrite
                ? (o) => (
                    <button
                      type="button"
                      class="danger small"
                      onClick={() => setRemoving(o)}
                      aria-label={`Remove ${o.phone} from the list`}
                    >
                      Remove
                    </button>
                  )
                : undefined
            }
          />
        )}
      </PagedRows>
      <ConfirmDialog
        open={!!removing}
        title={`Remove ${removing?.phone ?? ""} from the opt-out list?`}
        confirmLabel="Remove opt-out"
        danger
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/opt-outs/{phone}", { params: { path: { phone: removing!.phone } } }));
          setNotice(`${removing!.phone} removed from the opt-out list: it may be sent to again.`);
          list.update((items) => items.filter((o) => o.phone !== removing!.phone));
        }}
      >
        <p>Only if the person asked to receive messages again: the account may then send to {removing?.phone}.</p>
      </ConfirmDialog>
    </section>
  );
}
