// The guards and limits of an account, as the operator edits them. An empty field is no limit (null).
import { useState } from "preact/hooks";
import { ok, type OperatorAccount } from "../../api.js";
import { InputField, SubmitRow } from "../../forms.js";
import { Field, fieldError, TitledForm, useAction, useNotice, useSession } from "../../ui.js";

/** "US, ca" → ["US", "CA"]; nothing → null (no limit). */
function parseList(text: string, upper: boolean): string[] | null {
  const items = text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((s) => (upper ? s.toUpperCase() : s));
  return items.length ? items : null;
}

const orNull = (text: string) => (text.trim() ? Number(text) : null);
const asText = (n: number | null) => (n === null ? "" : String(n));

export function LimitsForm({ account, onSaved }: { account: OperatorAccount; onSaved: (a: OperatorAccount) => void }) {
  const { client, canWrite } = useSession();
  const { limits } = account;
  const [suspended, setSuspended] = useState(account.suspended);
  const [weight, setWeight] = useState(String(limits.weight));
  const [quota, setQuota] = useState(asText(limits.dailySegmentQuota));
  const [countries, setCountries] = useState(limits.allowedCountries?.join(", ") ?? "");
  const [senders, setSenders] = useState(limits.senderIds?.join(", ") ?? "");
  const [blocked, setBlocked] = useState(limits.blockedPrefixes.join(", "));
  const [selfService, setSelfService] = useState(limits.selfServiceNumbers);
  const [ceiling, setCeiling] = useState(asText(limits.maxSegmentsPerSecond));
  const [notice, setNotice] = useNotice();
  const save = useAction(async () => {
    setNotice(undefined);
    const saved = await ok(
      client.PATCH("/api/v1/accounts/{accountId}", {
        params: { path: { accountId: account.accountId } },
        body: {
          suspended,
          weight: Number(weight),
          dailySegmentQuota: orNull(quota),
          allowedCountries: parseList(countries, true),
          senderIds: parseList(senders, false),
          blockedPrefixes: parseList(blocked, false) ?? [],
          selfServiceNumbers: selfService,
          maxSegmentsPerSecond: orNull(ceiling),
        },
      }),
    );
    onSaved(saved);
    // The form shows what is stored now (country codes in upper case, lists tidied).
    setCountries(saved.limits.allowedCountries?.join(", ") ?? "");
    setSenders(saved.limits.senderIds?.join(", ") ?? "");
    setBlocked(saved.limits.blockedPrefixes.join(", "));
    setNotice(`Limits of “${saved.name}” saved.`);
  });
  const err = (path: string) => fieldError(save.error, `/body/${path}`);
  const number = (id: string, value: string, set: (v: string) => void, min: number, max?: number, required = false) => (
    <input
      id={id}
      type="number"
      min={min}
      max={max}
      step={1}
      inputMode="numeric"
      required={required}
      value={value}
      onInput={(e) => set(e.currentTarget.value)}
      aria-describedby={`${id}-hint`}
    />
  );
  return (
    <TitledForm titleId="limits-title" title="Guards and limits" readOnly={!canWrite} onSubmit={() => void save.run()}>
      <label class="inline">
        <input type="checkbox" checked={suspended} onChange={(e) => setSuspended(e.currentTarget.checked)} /> Suspended: its keys are
        refused (403) and its waiting messages wait
      </label>
      <div class="grid-2">
        <Field
          id="limit-quota"
          label="Daily segment quota"
          hint="Segments accepted per UTC day. Empty: no quota."
          error={err("dailySegmentQuota")}
        >
          {number("limit-quota", quota, setQuota, 1)}
        </Field>
        <Field
          id="limit-weight"
          label="Weight"
          hint="Its share of the sending capacity against other busy accounts, 1 to 100."
          error={err("weight")}
        >
          {number("limit-weight", weight, setWeight, 1, 100, true)}
        </Field>
        <InputField
          id="limit-countries"
          label="Allowed countries"
          hint="ISO codes separated by commas, e.g. US, CA. Empty: every country."
          error={err("allowedCountries")}
          value={countries}
          onValue={setCountries}
        />
        <InputField
          id="limit-blocked"
          label="Blocked destinations"
          hint="Number prefixes with their +, separated by commas, e.g. +4470, +882. Empty: none (beside the deployment's)."
          error={err("blockedPrefixes")}
          value={blocked}
          onValue={setBlocked}
        />
        <InputField
          id="limit-senders"
          label="Sender IDs"
          hint="Separated by commas, e.g. ACME, ACMESHOP. Empty: any."
          error={err("senderIds")}
          value={senders}
          onValue={setSenders}
        />
        <Field
          id="limit-ceiling"
          label="Throughput ceiling (segments a second)"
          hint="Over the account's own cap. Empty: none."
          error={err("maxSegmentsPerSecond")}
        >
          {number("limit-ceiling", ceiling, setCeiling, 1)}
        </Field>
      </div>
      <label class="inline">
        <input type="checkbox" checked={selfService} onChange={(e) => setSelfService(e.currentTarget.checked)} /> Self-service numbers: the
        account may add numbers itself
      </label>
      <SubmitRow action={save} failed="Limits not saved" busy="Saving…" notice={notice}>
        Save limits
      </SubmitRow>
    </TitledForm>
  );
}
