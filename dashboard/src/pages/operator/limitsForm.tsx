// The guards and limits of an account, as the operator edits them. An empty field is no limit (null).
import { useState } from "preact/hooks";
import { ok, type OperatorAccount } from "../../api.js";
import { fieldsOf, InputField, SubmitRow } from "../../forms.js";
import { TitledForm, useAction, useNotice, useSession } from "../../ui.js";

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

/** The limits as the form's fields show them, each named as the request names it (its errors' paths). */
const asFields = (limits: OperatorAccount["limits"]) => ({
  weight: String(limits.weight),
  dailySegmentQuota: asText(limits.dailySegmentQuota),
  allowedCountries: limits.allowedCountries?.join(", ") ?? "",
  senderIds: limits.senderIds?.join(", ") ?? "",
  blockedPrefixes: limits.blockedPrefixes.join(", "),
  maxSegmentsPerSecond: asText(limits.maxSegmentsPerSecond),
});

/** A whole number of at least 1. */
const WHOLE = { type: "number", min: 1, step: 1, inputMode: "numeric" } as const;

export function LimitsForm({ account, onSaved }: { account: OperatorAccount; onSaved: (a: OperatorAccount) => void }) {
  const { client, canWrite } = useSession();
  const [suspended, setSuspended] = useState(account.suspended);
  const [selfService, setSelfService] = useState(account.limits.selfServiceNumbers);
  const [f, setF] = useState(asFields(account.limits));
  const [notice, setNotice] = useNotice();
  const save = useAction(async () => {
    setNotice(undefined);
    const saved = await ok(
      client.PATCH("/api/v1/accounts/{accountId}", {
        params: { path: { accountId: account.accountId } },
        body: {
          suspended,
          weight: Number(f.weight),
          dailySegmentQuota: orNull(f.dailySegmentQuota),
          allowedCountries: parseList(f.allowedCountries, true),
          senderIds: parseList(f.senderIds, false),
          blockedPrefixes: parseList(f.blockedPrefixes, false) ?? [],
          selfServiceNumbers: selfService,
          maxSegmentsPerSecond: orNull(f.maxSegmentsPerSecond),
        },
      }),
    );
    onSaved(saved);
    // The form shows what is stored now (country codes in upper case, lists tidied).
    setF(asFields(saved.limits));
    setNotice(`Limits of “${saved.name}” saved.`);
  });
  const field = fieldsOf(f, setF, save.error);
  return (
    <TitledForm titleId="limits-title" title="Guards and limits" readOnly={!canWrite} onSubmit={() => void save.run()}>
      <label class="inline">
        <input type="checkbox" checked={suspended} onChange={(e) => setSuspended(e.currentTarget.checked)} /> Suspended: its keys are
        refused (403) and its waiting messages wait
      </label>
      <div class="grid-2">
        <InputField
          id="limit-quota"
          label="Daily segment quota"
          hint="Segments accepted per UTC day. Empty: no quota."
          {...WHOLE}
          {...field("dailySegmentQuota")}
        />
        <InputField
          id="limit-weight"
          label="Weight"
          hint="Its share of the sending capacity against other busy accounts, 1 to 100."
          {...WHOLE}
          max={100}
          required
          {...field("weight")}
        />
        <InputField
          id="limit-countries"
          label="Allowed countries"
          hint="ISO codes separated by commas, e.g. US, CA. Empty: every country."
          {...field("allowedCountries")}
        />
        <InputField
          id="limit-blocked"
          label="Blocked destinations"
          hint="Number prefixes with their +, separated by commas, e.g. +4470, +882. Empty: none (beside the deployment's)."
          {...field("blockedPrefixes")}
        />
        <InputField
          id="limit-senders"
          label="Sender IDs"
          hint="Separated by commas, e.g. ACME, ACMESHOP. Empty: any."
          {...field("senderIds")}
        />
        <InputField
          id="limit-ceiling"
          label="Throughput ceiling (segments a second)"
          hint="Over the account's own cap. Empty: none."
          {...WHOLE}
          {...field("maxSegmentsPerSecond")}
        />
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
