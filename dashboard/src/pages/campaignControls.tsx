// A campaign's controls in words: pause and resume sending (or start a draft), and duplicate it as a new draft.
import { ok, type Campaign } from "../api.js";
import { navigate } from "../router.js";
import { ProblemMessage, useAction, useSession } from "../ui.js";

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
