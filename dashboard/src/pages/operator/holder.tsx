// Who holds a number: the account a phone number is assigned to, if any (a number belongs to one account).
import { useState } from "preact/hooks";
import { ApiProblem, ok } from "../../api.js";
import { Link } from "../../router.js";
import { Notice, PhoneField, ProblemMessage, TitledForm, useAction, useSession } from "../../ui.js";
import { bound } from "../../forms.js";

type Answer = { phoneNumber: string; accountId: string; name: string } | { phoneNumber: string; accountId: null };

export function NumberHolder() {
  const { client } = useSession();
  const [phoneNumber, setPhoneNumber] = useState("");
  const [answer, setAnswer] = useState<Answer | undefined>();
  const find = useAction(async () => {
    setAnswer(undefined);
    try {
      const holder = await ok(client.GET("/api/v1/numbers/holder", { params: { query: { phoneNumber } } }));
      const account = await ok(client.GET("/api/v1/accounts/{accountId}", { params: { path: { accountId: holder.accountId } } }));
      setAnswer({ phoneNumber, accountId: account.accountId, name: account.name });
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 404) setAnswer({ phoneNumber, accountId: null });
      else throw error;
    }
  });
  return (
    <TitledForm titleId="holder-title" title="Who holds a number?" onSubmit={() => void find.run()}>
      <PhoneField
        id="holder-phone"
        hint="With its +country prefix, e.g. +14155550199"
        {...bound(phoneNumber, setPhoneNumber, find.error, "/query/phoneNumber")}
      />
      <ProblemMessage error={find.error} prefix="Not found out" />
      <div class="actions">
        <button type="submit" disabled={find.busy}>
          Find the holder
        </button>
      </div>
      {answer && (
        <Notice kind="info">
          {answer.accountId ? (
            <>
              {answer.phoneNumber} is held by <Link to={`/operator/accounts/${answer.accountId}`}>{answer.name}</Link>.
            </>
          ) : (
            `No account holds ${answer.phoneNumber}: messages to it are kept as unrouted.`
          )}
        </Notice>
      )}
    </TitledForm>
  );
}
