// Operator → an account → Billing: its balance, its billing settings (price list, prepaid or postpaid, credit
// limit, low-balance threshold, when it is charged, currency) and a credit or correction (docs/BILLING.md).
// Amounts are typed in currency units and sent as integers of micro-units (dashboard/src/money.ts).
import { useState } from "preact/hooks";
import { ok, type OperatorAccount } from "../../api.js";
import { formatMicros, microsToDecimal, parseMicros } from "../../money.js";
import { bound, InputField, SubmitRow } from "../../forms.js";
import { Field, fieldError, Notice, ProblemMessage, TitledForm, useAction, useAsync, useNotice, useSession } from "../../ui.js";

type Limits = OperatorAccount["limits"];

export function AccountBilling({ account, onSaved }: { account: OperatorAccount; onSaved: (a: OperatorAccount) => void }) {
  const { client, canWrite } = useSession();
  const limits: Limits = account.limits;
  const lists = useAsync(async () => (await ok(client.GET("/api/v1/price-lists"))).data, []);
  const [priceList, setPriceList] = useState(limits.priceList ?? "");
  const [billing, setBilling] = useState(limits.billing);
  const [creditLimit, setCreditLimit] = useState(microsToDecimal(limits.creditLimit));
  const [threshold, setThreshold] = useState(limits.lowBalanceThreshold === null ? "" : microsToDecimal(limits.lowBalanceThreshold));
  const [chargeOn, setChargeOn] = useState(limits.chargeOn);
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [notice, setNotice] = useNotice();
  const id = `billing-${account.accountId}`;
  const currencyOf = (name: string) => lists.data?.find((l) => l.name === name)?.currency ?? limits.currency;
  const save = useAction(async () => {
    setNotice(undefined);
    const limitMicros = parseMicros(creditLimit);
    const thresholdMicros = threshold.trim() ? parseMicros(threshold) : null;
    if (limitMicros === undefined || limitMicros < 0 || thresholdMicros === undefined)
      throw new Error("Amounts are decimal numbers, e.g. 25 or 0.5.");
    const saved = await ok(
      client.PATCH("/api/v1/accounts/{accountId}", {
        params: { path: { accountId: account.accountId } },
        body: {
          priceList: priceList || null,
          ...(priceList ? { currency: currencyOf(priceList) } : {}),
          billing,
          creditLimit: limitMicros,
          lowBalanceThreshold: thresholdMicros,
          chargeOn,
        },
      }),
    );
    onSaved(saved);
    setNotice("Billing saved.");
  });
  const credit = useAction(async () => {
    setNotice(undefined);
    const micros = parseMicros(amount);
    if (micros === undefined || micros === 0) throw new Error("The amount is a decimal number other than 0, e.g. 100 or -2.5.");
    const entry = await ok(
      client.POST("/api/v1/accounts/{accountId}/credits", {
        params: { path: { accountId: account.accountId } },
        body: { amount: micros, note },
      }),
    );
    onSaved({ ...account, balance: entry.balanceAfter });
    setAmount("");
    setNote("");
    setNotice(
      `Credited ${formatMicros(entry.amount, limits.currency)}: the balance is ${formatMicros(entry.balanceAfter, limits.currency)}.`,
    );
  });
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Billing</h2>
      <dl class="facts">
        <dt>Balance</dt>
        <dd data-testid="operator-balance">{formatMicros(account.balance, limits.currency)}</dd>
      </dl>
      {notice && <Notice>{notice}</Notice>}
      <TitledForm titleId={`${id}-settings`} title="Billing settings" readOnly={!canWrite} onSubmit={() => void save.run()}>
        <div class="grid-2">
          <Field
            id={`${id}-list`}
            label="Price list"
            hint="Empty: its messages are not priced."
            error={fieldError(save.error, "/body/priceList")}
          >
            <select
              id={`${id}-list`}
              value={priceList}
              onChange={(e) => setPriceList(e.currentTarget.value)}
              aria-describedby={`${id}-list-hint`}
            >
              <option value="">none</option>
              {lists.data?.map((l) => (
                <option key={l.name} value={l.name}>
                  {l.name} ({l.currency})
                </option>
              ))}
            </select>
          </Field>
          <Field id={`${id}-kind`} label="Billing">
            <select id={`${id}-kind`} value={billing} onChange={(e) => setBilling(e.currentTarget.value as Limits["billing"])}>
              <option value="postpaid">postpaid: invoiced, never refused</option>
              <option value="prepaid">prepaid: refused below the credit limit</option>
            </select>
          </Field>
          <InputField
            id={`${id}-credit-limit`}
            label={`Credit limit (${limits.currency})`}
            hint="How far below zero a prepaid balance may go."
            inputMode="decimal"
            required
            {...bound(creditLimit, setCreditLimit, save.error, "/body/creditLimit")}
          />
          <InputField
            id={`${id}-threshold`}
            label={`Low-balance threshold (${limits.currency})`}
            hint="Below it, account.balance_low. Empty: never."
            inputMode="decimal"
            {...bound(threshold, setThreshold, save.error, "/body/lowBalanceThreshold")}
          />
          <Field id={`${id}-charge-on`} label="Charged">
            <select id={`${id}-charge-on`} value={chargeOn} onChange={(e) => setChargeOn(e.currentTarget.value as Limits["chargeOn"])}>
              <option value="submitted">once a carrier accepts the message</option>
              <option value="delivered">only for delivered messages</option>
            </select>
          </Field>
        </div>
        <SubmitRow action={save} failed="Billing not saved" busy="Saving…">
          Save billing
        </SubmitRow>
      </TitledForm>
      {canWrite && (
        <TitledForm titleId={`${id}-credit`} title="Credit or correct the balance" onSubmit={() => void credit.run()}>
          <div class="grid-2">
            <InputField
              id={`${id}-amount`}
              label={`Amount (${limits.currency})`}
              hint="Negative to correct downwards."
              inputMode="decimal"
              required
              {...bound(amount, setAmount, credit.error, "/body/amount")}
            />
            <InputField
              id={`${id}-note`}
              label="Note"
              hint="Kept on the ledger entry, e.g. the invoice."
              required
              maxLength={200}
              {...bound(note, setNote, credit.error, "/body/note")}
            />
          </div>
          <ProblemMessage error={credit.error} prefix="Not credited" />
          <div class="actions">
            <button type="submit" disabled={credit.busy}>
              {credit.busy ? "Crediting…" : "Credit the account"}
            </button>
          </div>
        </TitledForm>
      )}
    </section>
  );
}
