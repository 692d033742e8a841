// The Messages page's form: a message sent now (POST /messages without scheduledAt), or later at a time in the
// browser's time zone; an optional reference; the live count and smart encoding under the text.
import { useState } from "preact/hooks";
import { ok } from "../api.js";
import { PolicyFields, policyBody, usePolicy } from "../policyFields.js";
import { countIds, MessageCount, smartField, useSmartEncoding } from "../segments.js";
import { localInputToUtc, timeZone, toLocalInput, utcOffset } from "../time.js";
import { bound, InputField, SubmitRow } from "../forms.js";
import { Field, fieldError, ReferenceField, TitledForm, useAction, useSession } from "../ui.js";
import { TemplatePicker, useTemplates, type TemplateChoice } from "../templates.js";

export interface Sent {
  messageId: string;
  to: string;
  scheduledAt: string;
  /** Scheduled for a chosen time, not sent now. */
  later: boolean;
}

export function SendForm({ onSent }: { onSent: (sent: Sent) => void }) {
  const { client } = useSession();
  const [to, setTo] = useState("");
  const [from, setFrom] = useState("");
  const [body, setBody] = useState("");
  const [reference, setReference] = useState("");
  const [choice, setChoice] = useState<TemplateChoice | undefined>();
  const templates = useTemplates();
  const [later, setLater] = useState(false);
  const [when, setWhen] = useState(() => toLocalInput(new Date(Date.now() + 3600_000)));
  const [smart, setSmart] = useSmartEncoding();
  // The API's defaults for a single message.
  const [policy, setPolicy] = usePolicy({ category: "transactional", priority: "normal" });
  const utc = localInputToUtc(when);
  const action = useAction(async () => {
    const ref = reference.trim();
    const sent = await ok(
      client.POST("/api/v1/messages", {
        body: {
          to,
          from,
          ...(choice ? { templateId: choice.templateId, variables: choice.values } : { body }),
          ...(later ? { scheduledAt: utc ?? when } : {}),
          ...(ref ? { reference: ref } : {}),
          ...(choice ? {} : smartField(body, smart)),
          ...policyBody(policy),
        },
      }),
    );
    setBody("");
    setReference("");
    onSent({ messageId: sent.messageId, to, scheduledAt: sent.scheduledAt, later });
  });
  const err = (path: string) => fieldError(action.error, path);
  return (
    <TitledForm titleId="send-title" title="Send a message" onSubmit={() => void action.run()}>
      <div class="grid-2">
        <InputField
          id="msg-to"
          label="To"
          hint="With its +country prefix, e.g. +14155550123"
          type="tel"
          required
          autoComplete="off"
          {...bound(to, setTo, action.error, "/body/to")}
        />
        <InputField
          id="msg-from"
          label="From"
          hint="Sender ID (1–11 letters/digits) or a phone number"
          required
          {...bound(from, setFrom, action.error, "/body/from")}
        />
      </div>
      <TemplatePicker id="msg" templates={templates.data ?? []} choice={choice} onChoice={setChoice} campaign={false} error={action.error}>
        <Field id="msg-body" label="Message" error={err("/body/body")}>
          <textarea
            id="msg-body"
            required
            rows={3}
            maxLength={1600}
            value={body}
            onInput={(e) => setBody(e.currentTarget.value)}
            aria-describedby={countIds("msg-body-count", body)}
          />
          <MessageCount text={body} id="msg-body-count" smart={smart} onSmart={setSmart} />
        </Field>
      </TemplatePicker>
      <ReferenceField
        id="msg-reference"
        hint="Your own reference (an order id, a ticket): shown on the message and in every receipt."
        {...bound(reference, setReference, action.error, "/body/reference")}
      />
      <fieldset>
        <legend>When</legend>
        <label class="inline">
          <input type="radio" name="msg-when-choice" checked={!later} onChange={() => setLater(false)} /> Send now
        </label>
        <label class="inline">
          <input type="radio" name="msg-when-choice" checked={later} onChange={() => setLater(true)} /> Send later
        </label>
        {later && (
          <InputField
            id="msg-when"
            label="Send at"
            hint={
              <>
                Your time zone: {timeZone()} ({utcOffset(utc ? new Date(utc) : new Date())}). Sent as{" "}
                <output id="msg-when-utc">{utc ?? "—"}</output> (UTC).
              </>
            }
            type="datetime-local"
            required
            {...bound(when, setWhen, action.error, "/body/scheduledAt")}
          />
        )}
      </fieldset>
      <PolicyFields id="msg" policy={policy} onChange={setPolicy} error={err} />
      <SubmitRow action={action} failed={later ? "Not scheduled" : "Not sent"}>
        {action.busy ? (later ? "Scheduling…" : "Sending…") : later ? "Schedule" : "Send now"}
      </SubmitRow>
    </TitledForm>
  );
}
