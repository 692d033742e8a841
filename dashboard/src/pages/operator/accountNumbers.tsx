// The numbers of an account on the operator's page of it: assigning one, taking one back.
import { useState } from "preact/hooks";
import { ok, type PhoneNumber } from "../../api.js";
import { usePagedList } from "../../paging.js";
import { NumberList } from "../../numberList.js";
import { bound, InputField, SubmitRow } from "../../forms.js";
import { ConfirmDialog, Notice, PhoneField, TitledForm, useAction, useNotice, useSession } from "../../ui.js";

export function AccountNumbers({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const [phoneNumber, setPhoneNumber] = useState("");
  const [name, setName] = useState("");
  const [notice, setNotice] = useNotice();
  const [taking, setTaking] = useState<PhoneNumber | undefined>();
  const path = { path: { accountId } };
  const list = usePagedList<PhoneNumber>(
    async (page) => ok(client.GET("/api/v1/accounts/{accountId}/numbers", { params: { ...path, query: page } })),
    [accountId],
    50,
  );
  const assign = useAction(async () => {
    const body = { phoneNumber, ...(name.trim() ? { name: name.trim() } : {}) };
    const added = await ok(client.POST("/api/v1/accounts/{accountId}/numbers", { params: path, body }));
    setPhoneNumber("");
    setName("");
    setNotice(`Number ${added.phoneNumber} assigned: messages sent to it now reach this account.`);
    await list.reload();
  });
  return (
    <section class="card" aria-labelledby="account-numbers-title">
      <h2 id="account-numbers-title">Numbers</h2>
      <NumberList
        list={list}
        empty="No numbers: nothing can reach it."
        addedBy
        action={canWrite ? { label: "Take back", onClick: setTaking } : undefined}
      />
      {notice && <Notice>{notice}</Notice>}
      {canWrite && (
        <TitledForm titleId="assign-number-title" title="Assign a number" heading="h3" plain onSubmit={() => void assign.run()}>
          <div class="grid-2">
            <PhoneField
              id="assign-phone"
              hint="With its +country prefix, e.g. +14155550199; a number belongs to one account"
              {...bound(phoneNumber, setPhoneNumber, assign.error, "/body/phoneNumber")}
            />
            <InputField
              id="assign-name"
              label="Number name (optional)"
              maxLength={100}
              {...bound(name, setName, assign.error, "/body/name")}
            />
          </div>
          <SubmitRow action={assign} failed="Number not assigned">
            Assign number
          </SubmitRow>
        </TitledForm>
      )}
      <ConfirmDialog
        open={!!taking}
        title={`Take back number ${taking?.phoneNumber ?? ""}?`}
        confirmLabel="Take back number"
        danger
        onClose={() => setTaking(undefined)}
        onConfirm={async () => {
          await ok(
            client.DELETE("/api/v1/accounts/{accountId}/numbers/{numberId}", {
              params: { path: { accountId, numberId: taking!.numberId } },
            }),
          );
          setNotice(`Number ${taking!.phoneNumber} taken back: messages to it are kept as unrouted.`);
          list.update((items) => items.filter((n) => n.numberId !== taking!.numberId));
        }}
      >
        <p>Messages sent to {taking?.phoneNumber} no longer reach this account. Messages already received stay with it.</p>
      </ConfirmDialog>
    </section>
  );
}
