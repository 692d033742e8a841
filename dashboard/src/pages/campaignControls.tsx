// A campaign's controls in words: pause and resume sending (or start a draft), duplicate it as a new draft, and
// edit a draft before it starts (its name and its time).
import { useState } from "preact/hooks";
import { ok, type Campaign } from "../api.js";
import { navigate } from "../router.js";
import { localInputToUtc, timeZone, toLocalInput } from "../time.js";
import { bound, InputField } from "../forms.js";
import { ProblemMessage, TitledForm, useAction, useSession } from "../ui.js";

export function CampaignControls({ campaign, onChanged }: { campaign: Campaign; onChanged: (notice: string) => void }) {
  const { client, canSend } = useSession();
  const path = { params: { path: { campaignId: campaign.campaignId } } };
  const pause = useAction(async () => {
    await ok(client.POST("/api/v1/campaigns/{campaignId}/pause", path));
    onChanged("Sending paused: its waiting messages stay scheduled until you resume it (their validity still ends).");
  });
  const resume = useAction(async () => {
    const resumed = await ok(client.POST("/api/v1/campaigns/{campaignId}/resume", path));
    onChanged(resumed.status === "scheduled" ? "Campaign started: it sends at its scheduled time." : "Sending resumed.");
  });
  const duplicate = useAction(async () => {
    const copy = await ok(client.POST("/api/v1/campaigns/{campaignId}/duplicate", { ...path, body: {} }));
    navigate(`/campaigns/${copy.campaignId}`);
  });
  if (!canSend) return null;
  const { status } = campaign;
  const error = pause.error ?? resume.error ?? duplicate.error;
  return (
    <div class="actions" data-testid="campaign-controls">
      {(status === "sending" || status === "scheduled") && (
        <button type="button" onClick={() => void pause.run()} disabled={pause.busy}>
          Pause sending
        </button>
      )}
      {status === "paused" && (
        <button type="button" onClick={() => void resume.run()} disabled={resume.busy}>
          Resume sending
        </button>
      )}
      {status === "draft" && (
        <button type="button" onClick={() => void resume.run()} disabled={resume.busy}>
          Start this campaign
        </button>
      )}
      <button type="button" onClick={() => void duplicate.run()} disabled={duplicate.busy}>
        Duplicate as a draft
      </button>
      <ProblemMessage error={error} prefix="Not done" />
    </div>
  );
}

/**
 * A draft edited before it starts: its name, and the time it is sent once started (empty: as soon as it is
 * started; once set, a time can be moved but not taken away). Its text and audience are the copy's.
 */
export function EditDraft({ campaign, onSaved }: { campaign: Campaign; onSaved: (notice: string) => void }) {
  const { client } = useSession();
  const [name, setName] = useState(campaign.name);
  const [when, setWhen] = useState(() => (campaign.scheduledAt ? toLocalInput(new Date(campaign.scheduledAt)) : ""));
  const save = useAction(async () => {
    const utc = when ? (localInputToUtc(when) ?? when) : undefined;
    const saved = await ok(
      client.PATCH("/api/v1/campaigns/{campaignId}", {
        params: { path: { campaignId: campaign.campaignId } },
        body: { name: name.trim(), ...(utc ? { scheduledAt: utc } : {}) },
      }),
    );
    onSaved(saved.scheduledAt ? "Draft saved: once started, it sends at its time." : "Draft saved: it sends as soon as it is started.");
  });
  return (
    <TitledForm titleId="edit-draft-title" title="Edit the draft" heading="h3" plain onSubmit={() => void save.run()}>
      <div class="grid-2">
        <InputField id="draft-name" label="Name" required maxLength={100} {...bound(name, setName, save.error, "/body/name")} />
        <InputField
          id="draft-at"
          label="Send at"
          hint={`Your time zone: ${timeZone()}. ${campaign.scheduledAt ? "It can move, not be taken away." : "Empty: as soon as it is started."}`}
          type="datetime-local"
          required={campaign.scheduledAt !== null}
          {...bound(when, setWhen, save.error, "/body/scheduledAt")}
        />
      </div>
      <ProblemMessage error={save.error} prefix="Not saved" />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          Save the draft
        </button>
      </div>
    </TitledForm>
  );
}
