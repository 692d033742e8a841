// Settings → Numbers: the phone numbers of the account (inbound messages to them come to its inbox), add, delete.
import { useState } from "preact/hooks";
import { ok, type PhoneNumber } from "../api.js";
import { NumberList } from "../numberList.js";
import { usePagedList } from "../paging.js";
import { bound, InputField } from "../forms.js";
import { ConfirmDialog, Notice, PhoneField, ProblemMessage, TitledForm, useAction, useNotice, useSession, ToggledPanel } from "../ui.js";

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
                  {...bound(phoneNumber, setPhoneNumber, add.error, "/body/phoneNumber")}
                />
                <InputField id="number-name" label="Name (optional)" maxLength={100} {...bound(name, setName, add.error, "/body/name")} />
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
      <NumberList
        list={list}
        empty="No numbers yet: the account can send, but nothing can reach it."
        action={canWrite ? { label: "Delete", onClick: setDeleting } : undefined}
      />
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
