// Settings → Numbers: the phone numbers of the account (inbound messages to them come to its inbox), add, delete.
import { useState } from "preact/hooks";
import { ok, type PhoneNumber } from "../api.js";
import { ListTable, OrDash } from "../listTable.js";
import { PagedRows, usePagedList } from "../paging.js";
import { formatTime } from "../time.js";
import { InputField } from "../forms.js";
import {
  ConfirmDialog,
  fieldError,
  Notice,
  PhoneField,
  ProblemMessage,
  TitledForm,
  useAction,
  useNotice,
  useSession,
  ToggledPanel,
} from "../ui.js";

export function Numbers() {
  const { client, canWrite } = useSession();
  const [phoneNumber, setPhoneNumber] = useState("");
  const [name, setName] = useState("");
  const [notice, setNotice] = useNotice();
  const [deleting, setDeleting] = useState<PhoneNumber | undefined>();
  const [adding, setAdding] = useState(false);
  const list = usePagedList<PhoneNumber>(async (page) => ok(client.GET("/api/v1/numbers", { params: { query: page } })), [], 50);
  const add = useAction(async () => {
    const created = await ok(client.POST("/api/v1/numbers", { body: { phoneNumber, ...(name.trim() ? { name: name.trim() } : {}) } }));
    setPhoneNumber("");
    setName("");
    setNotice(`Number ${created.phoneNumber} added: messages sent to it now arrive in the inbox.`);
    await list.reload();
  });
  const taken = add.error?.problem.code === "number_taken";
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Numbers</h1>
      <p class="muted">
        The phone numbers this account owns. Messages people send to them arrive in the inbox; replies go out from them. A number belongs to
        one account in the whole service.
      </p>
      {canWrite && (
        <>
          <ToggledPanel label="Add a number" id="new-number-panel" open={adding} onToggle={setAdding}>
            <TitledForm titleId="new-number-title" title="Add a number" onSubmit={() => void add.run()}>
              <div class="grid-2">
                <PhoneField
                  id="number-phone"
                  hint="With its +country prefix, e.g. +14155550199"
                  error={fieldError(add.error, "/body/phoneNumber")}
                  value={phoneNumber}
                  onValue={setPhoneNumber}
                />
                <InputField
                  id="number-name"
                  label="Name (optional)"
                  error={fieldError(add.error, "/body/name")}
                  maxLength={100}
                  value={name}
                  onValue={setName}
                />
              </div>
              {taken ? (
                <div class="problem" role="alert" data-testid="number-taken">
                  <p>
                    <strong>Number not added: it is already registered.</strong> {add.error?.problem.detail} A number can belong to one
                    account only; if it is yours, delete it from the account that holds it first.
                  </p>
                </div>
              ) : (
                <ProblemMessage error={add.error} prefix="Number not added" />
              )}
              <div class="actions">
                <button type="submit" class="primary" disabled={add.busy}>
                  Add number
                </button>
              </div>
            </TitledForm>
          </ToggledPanel>
        </>
      )}
      {notice && <Notice>{notice}</Notice>}
      <PagedRows
        list={list}
        noun="numbers"
        one="number"
        errorPrefix="Could not load the numbers"
        empty="No numbers yet: the account can send, but nothing can reach it."
      >
        {(items) => (
          <ListTable
            rows={items}
            bodyRef={list.rowsRef}
            rowKey={(n) => n.numberId}
            rowAttributes={(n) => ({ "data-number": n.phoneNumber })}
            columns={[
              { label: "Number", cell: (n) => n.phoneNumber },
              { label: "Name", cell: (n) => <OrDash value={n.name} /> },
              { label: "Added", cell: (n) => formatTime(n.createdAt) },
            ]}
            actions={
              canWrite
                ? (n) => (
                    <button type="button" class="danger small" onClick={() => setDeleting(n)} aria-label={`Delete number ${n.phoneNumber}`}>
                      Delete
                    </button>
                  )
                : undefined
            }
          />
        )}
      </PagedRows>
      <ConfirmDialog
        open={!!deleting}
        title={`Delete number ${deleting?.phoneNumber ?? ""}?`}
        confirmLabel="Delete number"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/numbers/{numberId}", { params: { path: { numberId: deleting!.numberId } } }));
          setNotice(`Number ${deleting!.phoneNumber} deleted.`);
          list.update((items) => items.filter((n) => n.numberId !== deleting!.numberId));
        }}
      >
        <p>Messages sent to {deleting?.phoneNumber} no longer reach this account. Messages already received stay.</p>
      </ConfirmDialog>
    </section>
  );
}
