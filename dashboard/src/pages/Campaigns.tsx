// Campaigns: the list, and creating one (a group or pasted numbers, now or later) with a live preview of the
// personalised text and its segment count.
import { useMemo, useState } from "preact/hooks";
import { fill } from "../../../common/personalise.js";
import { keyValueProblem, parseCustomFields } from "./contacts/details.js";
import { madeText as madeTemplateText, TemplatePicker, useTemplates, type TemplateChoice } from "../templates.js";
import { ok, type Campaign } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { Link, navigate } from "../router.js";
import { PolicyFields, policyBody, usePolicy } from "../policyFields.js";
import { countIds, MessageCount, segmentSummary, smartField, useSmartEncoding } from "../segments.js";
import { formatTime, localInputToUtc, timeZone, toLocalInput, utcOffset } from "../time.js";
import { bound, InputField, SubmitRow, TextAreaField } from "../forms.js";
import {
  Field,
  fieldError,
  ReferenceField,
  StatusChip,
  TitledForm,
  useAction,
  useAsync,
  usePolling,
  useSession,
  ToggledPanel,
} from "../ui.js";
import { QuotaNote } from "../usage.js";
import { CampaignProgress } from "./CampaignDetail.js";

/** Numbers pasted one a line, or separated by commas, semicolons or tabs. */
export function parseRecipients(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\n,;\t]+/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

function CreateCampaign() {
  const { client } = useSession();
  const [name, setName] = useState("");
  const [message, setMessage] = useState("Hi {{firstName}}, ");
  const [from, setFrom] = useState("");
  const [reference, setReference] = useState("");
  const [fallbacks, setFallbacks] = useState("");
  const [fallbacksProblem, setFallbacksProblem] = useState<string | undefined>();
  const [choice, setChoice] = useState<TemplateChoice | undefined>();
  const templates = useTemplates();
  const chosen = choice && templates.data?.find((t) => t.templateId === choice.templateId);
  // The campaign's message: its own, or the template's with its variables (the contact's placeholders kept).
  const text = chosen && choice ? madeTemplateText(chosen, choice.values, true) : message;
  const [smart, setSmart] = useSmartEncoding();
  const [audience, setAudience] = useState<"group" | "recipients">("group");
  const [groupId, setGroupId] = useState("");
  const [pasted, setPasted] = useState("");
  const [type, setType] = useState<"instant" | "scheduled">("instant");
  const [when, setWhen] = useState(() => toLocalInput(new Date(Date.now() + 3600_000)));
  // The API's defaults for a campaign.
  const [policy, setPolicy] = usePolicy({ category: "marketing", priority: "low" });

  const groups = useAsync(async () => (await ok(client.GET("/api/v1/contacts/groups/all"))).data, []);
  const sample = useAsync(async () => {
    if (audience !== "group" || !groupId) return undefined;
    const page = await ok(client.GET("/api/v1/contacts", { params: { query: { groupId, limit: 20 } } }));
    return page.data.find((c) => c.firstName) ?? page.data[0];
  }, [audience, groupId]);

  const recipients = useMemo(() => parseRecipients(pasted), [pasted]);
  const group = groups.data?.find((g) => g.groupId === groupId);
  const audienceSize = audience === "group" ? (group?.contactCount ?? 0) : recipients.length;
  const fallbackValues = useMemo(() => parseCustomFields(fallbacks), [fallbacks]);
  // The message as the sample contact would get it (a pasted number has no contact: first name empty): the
  // text that is sent, the template's when one is chosen, never the hidden text of the form's own field.
  const preview =
    (audience === "group" && sample.data ? fill(text, sample.data, fallbackValues) : fill(text, { firstName: null }, fallbackValues)) ??
    "(this contact would be left out: a placeholder has no value and no fallback)";
  const utc = localInputToUtc(when);

  const action = useAction(async () => {
    const campaign = await ok(
      client.POST("/api/v1/campaigns", {
        body: {
          name,
          ...(choice ? { templateId: choice.templateId, variables: choice.values } : { message }),
          type,
          ...(from ? { from } : {}),
          ...(reference.trim() ? { reference: reference.trim() } : {}),
          ...(Object.keys(fallbackValues).length > 0 ? { fallbacks: fallbackValues } : {}),
          ...smartField(text, smart),
          ...(audience === "group" ? { groupId } : { recipients }),
          ...(type === "scheduled" ? { scheduledAt: utc ?? when } : {}),
          ...policyBody(policy),
        },
      }),
    );
    navigate(`/campaigns/${campaign.campaignId}`);
  });
  const err = (path: string) => fieldError(action.error, path);

  return (
    <TitledForm
      titleId="new-campaign-title"
      title="New campaign"
      onSubmit={() => {
        const problem = keyValueProblem(fallbacks, "placeholder");
        setFallbacksProblem(problem);
        if (problem) document.getElementById("campaign-fallbacks")?.focus();
        else void action.run();
      }}
    >
      <div class="grid-2">
        <InputField id="campaign-name" label="Name" error={err("/body/name")} required maxLength={100} value={name} onValue={setName} />
        <InputField
          id="campaign-from"
          label="From (optional)"
          hint="Sender ID; the server's default when empty"
          {...bound(from, setFrom, action.error, "/body/from")}
        />
      </div>
      <TemplatePicker id="campaign" templates={templates.data ?? []} choice={choice} onChoice={setChoice} campaign error={action.error}>
        <Field
          id="campaign-message"
          label="Message"
          hint={
            <>
              {"{{firstName}}"}, {"{{lastName}}"} and {"{{custom.key}}"} are replaced by each contact&apos;s values; a contact without a
              last name or custom field it names, and no fallback below, is left out.
            </>
          }
          error={err("/body/message")}
        >
          <textarea
            id="campaign-message"
            required
            rows={3}
            maxLength={1600}
            value={message}
            onInput={(e) => setMessage(e.currentTarget.value)}
            aria-describedby={`campaign-message-hint ${countIds("campaign-message-count", message)}`}
          />
          <MessageCount text={message} id="campaign-message-count" smart={smart} onSmart={setSmart} />
        </Field>
      </TemplatePicker>
      <Field
        id="campaign-fallbacks"
        label="Fallbacks (optional)"
        hint="One placeholder=value a line, e.g. lastName=customer or custom.plan=standard"
        error={fallbacksProblem ?? err("/body/fallbacks")}
      >
        <textarea
          id="campaign-fallbacks"
          rows={2}
          value={fallbacks}
          onInput={(e) => {
            setFallbacks(e.currentTarget.value);
            setFallbacksProblem(undefined);
          }}
          aria-invalid={fallbacksProblem ? true : undefined}
          aria-describedby={`campaign-fallbacks-hint${fallbacksProblem ? " campaign-fallbacks-error" : ""}`}
        />
      </Field>
      <ReferenceField
        id="campaign-reference"
        hint="Your own reference, given to each of its messages and their receipts."
        {...bound(reference, setReference, action.error, "/body/reference")}
      />

      <fieldset>
        <legend>Audience</legend>
        <label class="inline">
          <input type="radio" name="audience" value="group" checked={audience === "group"} onChange={() => setAudience("group")} /> A group
        </label>
        <label class="inline">
          <input
            type="radio"
            name="audience"
            value="recipients"
            checked={audience === "recipients"}
            onChange={() => setAudience("recipients")}
          />{" "}
          Pasted numbers
        </label>
        {audience === "group" ? (
          <Field id="campaign-group" label="Group" error={err("/body/groupId")}>
            <select id="campaign-group" required value={groupId} onChange={(e) => setGroupId(e.currentTarget.value)}>
              <option value="">Choose a group…</option>
              {groups.data?.map((g) => (
                <option key={g.groupId} value={g.groupId}>
                  {g.name} ({g.contactCount})
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <TextAreaField
            id="campaign-recipients"
            label="Phone numbers"
            hint="One a line, or separated by commas; with their +country prefix. Up to 10,000."
            required
            rows={4}
            {...bound(pasted, setPasted, action.error, "/body/recipients")}
          />
        )}
      </fieldset>

      <fieldset>
        <legend>When</legend>
        <label class="inline">
          <input type="radio" name="type" value="instant" checked={type === "instant"} onChange={() => setType("instant")} /> Send now
        </label>
        <label class="inline">
          <input type="radio" name="type" value="scheduled" checked={type === "scheduled"} onChange={() => setType("scheduled")} /> Schedule
        </label>
        {type === "scheduled" && (
          <InputField
            id="campaign-when"
            label="Send at"
            hint={
              <>
                Your time zone: {timeZone()} ({utcOffset(utc ? new Date(utc) : new Date())}). Sent as <output>{utc ?? "—"}</output> (UTC).
              </>
            }
            type="datetime-local"
            required
            {...bound(when, setWhen, action.error, "/body/scheduledAt")}
          />
        )}
      </fieldset>

      <PolicyFields id="campaign" policy={policy} onChange={setPolicy} error={err} />

      <section class="preview" aria-labelledby="preview-title">
        <h3 id="preview-title">Preview</h3>
        <p class="muted">
          {audience === "group"
            ? sample.data
              ? `As ${sample.data.firstName ?? "a contact without a first name"} (${sample.data.phone}) receives it:`
              : groupId
                ? "The group has no contacts yet."
                : "Choose a group to preview with its first contact."
            : "Pasted numbers have no first name: {{firstName}} becomes empty."}
        </p>
        <p class="bubble" data-testid="preview-text">
          {preview || <span class="muted">(empty)</span>}
        </p>
        <p class="muted" data-testid="preview-segments">
          {segmentSummary(preview, smart)} · {audienceSize} recipient{audienceSize === 1 ? "" : "s"}
        </p>
      </section>

      <SubmitRow action={action} failed="Campaign not created">
        {action.busy ? "Creating…" : type === "instant" ? "Send campaign" : "Schedule campaign"}
      </SubmitRow>
    </TitledForm>
  );
}

export function Campaigns() {
  const { client, canSend } = useSession();
  const [creating, setCreating] = useState(false);
  const list = usePagedList<Campaign>(async (query) => ok(client.GET("/api/v1/campaigns", { params: { query } })), [], 50);
  // Live: quickly while one sends, now and then while one waits for its time.
  const sending = !!list.items?.some((c) => c.status === "sending");
  usePolling(list.reload, sending ? 2000 : 10_000, sending || !!list.items?.some((c) => c.status === "scheduled"));
  return (
    <section>
      <h1 tabIndex={-1}>Campaigns</h1>
      <QuotaNote />
      {canSend && (
        <>
          <ToggledPanel label="New campaign" id="new-campaign-panel" open={creating} onToggle={setCreating}>
            <CreateCampaign />
          </ToggledPanel>
        </>
      )}
      <section class="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">All campaigns</h2>
        <PagedRows list={list} noun="campaigns" one="campaign" empty="No campaigns yet.">
          {(items) => (
            <ul class="rows" aria-label="Campaigns" ref={list.rowsRef}>
              {items.map((c) => (
                <li key={c.campaignId} class="row" data-campaign={c.name}>
                  <div class="row-main">
                    <Link to={`/campaigns/${c.campaignId}`} class="row-title">
                      {c.name}
                    </Link>
                    <StatusChip status={c.status} />
                    <p class="row-text">{c.message}</p>
                  </div>
                  <div class="row-meta">
                    <span>{c.scheduledAt ? `Scheduled for ${formatTime(c.scheduledAt)}` : `Created ${formatTime(c.createdAt)}`}</span>
                    <CampaignProgress campaign={c} compact />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </PagedRows>
      </section>
    </section>
  );
}
