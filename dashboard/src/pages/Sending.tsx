// Settings → Sending: the account's sending policy. Quiet hours hold marketing messages in each recipient's
// local time, the default time zone is for recipients whose zone is not known, the cap limits segments a second,
// smart encoding is what messages that do not say otherwise get.
import { useState } from "preact/hooks";
import { ok, type AccountSettings } from "../api.js";
import { SettingsPage, type SettingsFormProps } from "../settingsPage.js";
import { TimeZoneInput } from "../timeZoneInput.js";
import { bound, InputField, SubmitRow } from "../forms.js";
import { Field, fieldError, TitledForm, useAction, useNotice, useSession } from "../ui.js";
import { count, LimitsFacts } from "../usage.js";

function SendingForm({ settings, onSaved }: SettingsFormProps) {
  const { client } = useSession();
  const [quiet, setQuiet] = useState(settings.quietHours !== null);
  const [start, setStart] = useState(settings.quietHours?.start ?? "21:00");
  const [end, setEnd] = useState(settings.quietHours?.end ?? "08:00");
  const [zone, setZone] = useState(settings.defaultTimeZone);
  const [cap, setCap] = useState(settings.maxSegmentsPerSecond === null ? "" : String(settings.maxSegmentsPerSecond));
  const [smart, setSmart] = useState(settings.smartEncoding);
  const [notice, setNotice] = useNotice();
  const save = useAction(async () => {
    setNotice(undefined);
    const saved = await ok(
      client.PATCH("/api/v1/account/settings", {
        body: {
          quietHours: quiet ? { start, end } : null,
          defaultTimeZone: zone.trim(),
          maxSegmentsPerSecond: cap.trim() ? Number(cap) : null,
          smartEncoding: smart,
        },
      }),
    );
    onSaved(saved);
    setNotice("Sending settings saved.");
  });
  const err = (path: string) => fieldError(save.error, path);
  return (
    <TitledForm titleId="sending-title" title="Sending policy" onSubmit={() => void save.run()}>
      <fieldset>
        <legend>Quiet hours</legend>
        <label class="inline">
          <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.currentTarget.checked)} /> Hold marketing messages during quiet
          hours
        </label>
        <p class="muted" id="quiet-hint">
          In each recipient's local time: the contact's time zone, else the one its number tells, else the default below. A marketing
          message due inside the window waits until it ends (its page shows until when); transactional messages are never held. The window
          may cross midnight.
        </p>
        {quiet && (
          <div class="grid-2">
            <InputField
              id="quiet-start"
              label="From"
              type="time"
              required
              {...bound(start, setStart, save.error, "/body/quietHours/start")}
            />
            <InputField id="quiet-end" label="Until" type="time" required {...bound(end, setEnd, save.error, "/body/quietHours/end")} />
          </div>
        )}
      </fieldset>
      <Field
        id="default-zone"
        label="Default time zone"
        hint="An IANA name such as America/New_York: the zone of recipients whose own zone is not known."
        error={err("/body/defaultTimeZone")}
      >
        <TimeZoneInput id="default-zone" required value={zone} onInput={setZone} describedBy="default-zone-hint" />
      </Field>
      <InputField
        id="segments-cap"
        label="Throughput cap (segments a second)"
        hint="The most SMS segments a second this account hands to the carrier, across every worker (a long message counts each part). Over it, messages wait their turn by priority; none fails for it. Empty: no cap."
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        {...bound(cap, setCap, save.error, "/body/maxSegmentsPerSecond")}
      />
      <div class="field">
        <label class="inline">
          <input type="checkbox" checked={smart} onChange={(e) => setSmart(e.currentTarget.checked)} aria-describedby="smart-hint" /> Smart
          encoding by default
        </label>
        <small class="hint" id="smart-hint">
          A message whose text is UCS-2 only because of look-alike characters (curly quotes, dashes, an ellipsis, non-breaking spaces) is
          sent with them replaced, as GSM-7: fewer segments. A message or campaign may still say otherwise (the forms' "Use smart encoding"
          box starts from this setting). The message keeps its text and shows what was sent.
        </small>
      </div>
      <SubmitRow action={save} failed="Not saved" busy="Saving…" notice={notice}>
        Save sending settings
      </SubmitRow>
    </TitledForm>
  );
}

function SendingSummary({ settings }: { settings: AccountSettings }) {
  return (
    <dl class="facts">
      <dt>Quiet hours</dt>
      <dd>{settings.quietHours ? `${settings.quietHours.start} to ${settings.quietHours.end}` : "none"}</dd>
      <dt>Default time zone</dt>
      <dd>{settings.defaultTimeZone}</dd>
      <dt>Throughput cap</dt>
      <dd>{settings.maxSegmentsPerSecond === null ? "none" : `${settings.maxSegmentsPerSecond} segments a second`}</dd>
      <dt>Smart encoding by default</dt>
      <dd>{settings.smartEncoding ? "yes" : "no"}</dd>
    </dl>
  );
}

export function Sending() {
  return (
    <SettingsPage
      title="Settings → Sending"
      form={SendingForm}
      summary={SendingSummary}
      aside={(account) => (
        <section class="card" aria-labelledby="limits-title">
          <h2 id="limits-title">Limits set by the operator</h2>
          {account.usage && account.limits.dailySegmentQuota !== null && (
            <p data-testid="quota-usage">
              <strong>
                Today (UTC): {count(account.usage.segmentsAccepted)} of {count(account.limits.dailySegmentQuota)} segments
              </strong>
            </p>
          )}
          <LimitsFacts limits={account.limits} usage={account.usage} />
        </section>
      )}
      intro={
        <>
          When and how fast the account's messages go out. Changing the quiet hours or the default time zone re-judges held messages at
          once.
        </>
      }
    />
  );
}
