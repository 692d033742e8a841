// The sending policy of a message or campaign, on the schedule and campaign forms: category, priority and
// validity, each with what it means (the API's defaults differ per form, so the form passes them in).
import { useState } from "preact/hooks";
import type { Schemas } from "./api.js";
import { InputField, SelectField } from "./forms.js";

type Category = Schemas["MessageCategory"];
type Priority = Schemas["MessagePriority"];

export interface Policy {
  category: Category;
  priority: Priority;
  /** Minutes as typed; empty: no validity limit. */
  validityMinutes: string;
}

/** The request fields for a policy: validityPeriod in seconds, left out when empty. */
export function policyBody(p: Policy): { category: Category; priority: Priority; validityPeriod?: number } {
  const minutes = Number(p.validityMinutes);
  return {
    category: p.category,
    priority: p.priority,
    ...(p.validityMinutes.trim() && Number.isFinite(minutes) ? { validityPeriod: Math.round(minutes * 60) } : {}),
  };
}

export function usePolicy(defaults: { category: Category; priority: Priority }) {
  return useState<Policy>({ ...defaults, validityMinutes: "" });
}

const CATEGORY_HINT: Record<Category, string> = {
  transactional: "Expected by the recipient (a code, an order update): never held by quiet hours.",
  marketing: "Promotion: held back during the account's quiet hours in the recipient's local time.",
};
const PRIORITY_HINT: Record<Priority, string> = {
  high: "Goes to the carrier before every due normal and low message (one-time codes).",
  normal: "After due high messages, before due low ones.",
  low: "When nothing more urgent is due (large campaigns).",
};

export function PolicyFields({
  id,
  policy,
  onChange,
  error,
}: {
  id: string;
  policy: Policy;
  onChange: (p: Policy) => void;
  error: (path: string) => string | undefined;
}) {
  return (
    <fieldset class="policy">
      <legend>Sending policy</legend>
      <div class="grid-3">
        <SelectField
          id={`${id}-category`}
          label="Category"
          hint={CATEGORY_HINT[policy.category]}
          error={error("/body/category")}
          value={policy.category}
          onValue={(category) => onChange({ ...policy, category })}
        >
          <option value="transactional">Transactional</option>
          <option value="marketing">Marketing</option>
        </SelectField>
        <SelectField
          id={`${id}-priority`}
          label="Priority"
          hint={PRIORITY_HINT[policy.priority]}
          error={error("/body/priority")}
          value={policy.priority}
          onValue={(priority) => onChange({ ...policy, priority })}
        >
          <option value="high">High</option>
          <option value="normal">Normal</option>
          <option value="low">Low</option>
        </SelectField>
        <InputField
          id={`${id}-validity`}
          label="Valid for (minutes)"
          hint="Not handed to the carrier within this time after it is due, it is never sent (fails as validity_expired). Empty: no limit."
          error={error("/body/validityPeriod")}
          type="number"
          min={1}
          max={10080}
          step="any"
          inputMode="numeric"
          value={policy.validityMinutes}
          onValue={(validityMinutes) => onChange({ ...policy, validityMinutes })}
        />
      </div>
    </fieldset>
  );
}
