// One campaign: a live progress bar (sent / delivered / failed / undelivered) while it sends; pause, resume,
// duplicate (campaignControls.tsx), reschedule and cancel.
import { useState } from "preact/hooks";
import { ok, type Campaign } from "../api.js";
import { MetadataTable } from "../metadata.js";
import { Link } from "../router.js";
import { formatTime, localInputToUtc, timeZone, toLocalInput } from "../time.js";
import { bound, InputField } from "../forms.js";
import {
  ConfirmDialog,
  Loading,
  Notice,
  ProblemMessage,
  StatusChip,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  usePolling,
  useSession,
} from "../ui.js";
import { ChartFigure } from "../charts.js";
import { formatMicros } from "../money.js";
import { CampaignControls, EditDraft } from "./campaignControls.js";

const PARTS = [
  { key: "delivered", label: "Delivered" },
  { key: "sent", label: "In flight (sent, awaiting receipt)" },
  { key: "failed", label: "Failed" },
  { key: "undelivered", label: "Undelivered" },
  { key: "cancelled", label: "Cancelled" },
  { key: "optedOut", label: "Opted out (no message made)" },
] as const;

/** Why recipients were skipped, in words (stats.skippedBy; opted-out recipients have their own count). */
const SKIP_REASONS: Record<string, string> = {
  destination_not_allowed: "destination not allowed",
  missing_value: "missing a value for a placeholder",
  blocked: "destination blocked",
  unrecorded: "reason not recorded",
};
export const skippedReasons = (stats: Campaign["stats"]): string =>
  Object.entries(stats.skippedBy)
    .filter(([reason, n]) => reason !== "opted_out" && n > 0)
    .map(([reason, n]) => `${n} ${SKIP_REASONS[reason] ?? reason.replaceAll("_", " ")}`)
    .join(", ");

/** A stacked bar of the campaign's messages by status; a progressbar of the finished ones for assistive tech. */
export function CampaignProgress({ campaign, compact = false }: { campaign: Campaign; compact?: boolean }) {
  const { stats } = campaign;
  const total = stats.total;
  const finished = stats.delivered + stats.failed + stats.undelivered + stats.cancelled + stats.optedOut;
  // A delivered message was sent too: `sent` counts those still awaiting their receipt, said as "in flight"
  // ("0 sent, 42 delivered" read as nothing sent).
  const summary = `${finished} of ${total} finished: ${stats.delivered} delivered${stats.sent ? `, ${stats.sent} in flight` : ""}, ${stats.failed} failed, ${stats.undelivered} undelivered${
    stats.cancelled ? `, ${stats.cancelled} cancelled` : ""
  }${stats.optedOut ? `, ${stats.optedOut} opted out (skipped)` : ""}${stats.skipped ? `, ${stats.skipped} skipped (${skippedReasons(stats)})` : ""}${
    stats.scheduled ? `, ${stats.scheduled} waiting` : ""
  }`;
  const pct = (n: number) => (total ? `${(100 * n) / total}%` : "0%");
  return (
    <div class={`progress${compact ? " progress-compact" : ""}`}>
      <div
        class="bar"
        role="progressbar"
        aria-label={`Progress of ${campaign.name}`}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={finished}
        aria-valuetext={summary}
        data-status={campaign.status}
      >
        {PARTS.map((p) => (stats[p.key] ? <span key={p.key} class={`bar-${p.key}`} style={{ width: pct(stats[p.key]) }} /> : null))}
      </div>
      {compact ? (
        <small class="muted">{summary}</small>
      ) : (
        <dl class="legend">
          <div>
            <dt>Total</dt>
            <dd data-stat="total">{total}</dd>
          </div>
          <div>
            <dt>
              <span class="swatch bar-scheduled" aria-hidden="true" />
              Waiting
            </dt>
            <dd data-stat="scheduled">{stats.scheduled}</dd>
          </div>
          {stats.deferred > 0 && (
            <div>
              <dt>Held by quiet hours</dt>
              <dd data-stat="deferred">{stats.deferred}</dd>
            </div>
          )}
          {PARTS.map((p) => (
            <div key={p.key}>
              <dt>
                <span class={`swatch bar-${p.key}`} aria-hidden="true" />
                {p.label}
              </dt>
              <dd data-stat={p.key}>{stats[p.key]}</dd>
            </div>
          ))}
          {stats.skipped > 0 && (
            <div>
              <dt>Skipped (not in the total)</dt>
              <dd data-stat="skipped">
                {stats.skipped}: {skippedReasons(stats)}
              </dd>
            </div>
          )}
        </dl>
      )}
    </div>
  );
}

/** The audience group by name (the campaign keeps its own snapshot of the contacts; the group may be gone). */
function GroupName({ groupId }: { groupId: string }) {
  const { client } = useSession();
  const group = useAsync(() => ok(client.GET("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId } } })), [groupId]);
  if (group.error?.status === 404) return <span>a group since deleted</span>;
  return <Link to={`/contacts?groupId=${groupId}`}>{group.data ? `group “${group.data.name}”` : "a group"}</Link>;
}

/** Sent and delivered by hour since the campaign was made (GET /reports/messages?campaignId=…&groupBy=hour). */
function ProgressOverTime({ campaignId, since, live }: { campaignId: string; since: string; live: boolean }) {
  const { client } = useSession();
  const hours = useAsync(
    async () =>
      (
        await ok(
          client.GET("/api/v1/reports/messages", {
            params: { query: { campaignId, since, until: new Date(Date.now() + 3_600_000).toISOString(), groupBy: ["hour"] } },
          }),
        )
      ).rows,
    [campaignId, since],
  );
  usePolling(hours.reload, 5000, live);
  const rows = hours.data ?? [];
  if (rows.length === 0) return null;
  return (
    <ChartFigure
      id="campaign-progress"
      caption="Progress over time"
      labelHeading="Hour"
      summary={`Messages of this campaign sent and delivered, by hour, over ${rows.length} hours.`}
      labels={rows.map((r) => formatTime(r.hour))}
      series={[
        { label: "Sent", kind: "line", values: rows.map((r) => r.sent) },
        { label: "Delivered", kind: "line", values: rows.map((r) => r.delivered) },
        { label: "Failed or undelivered", kind: "line", dashed: true, values: rows.map((r) => r.failed + r.undelivered) },
      ]}
    />
  );
}

/**
 * Its estimated cost (its audience as priced when it was created, reserved then) and, once it sends, what was
 * charged for good so far: `spend` of the reports for the campaign (docs/BILLING.md, "Spend").
 */
function CampaignCost({ campaign, live }: { campaign: Campaign; live: boolean }) {
  const { client } = useSession();
  const cost = campaign.cost;
  const spend = useAsync(async () => {
    if (!cost || campaign.status === "scheduled") return null;
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const report = await ok(
      client.GET("/api/v1/reports/messages", { params: { query: { since: campaign.createdAt, until, campaignId: campaign.campaignId } } }),
    );
    return report.rows.reduce((sum, r) => sum + r.spend, 0);
  }, [campaign.campaignId, campaign.status]);
  usePolling(spend.reload, 5000, live && !!cost);
  if (!cost) return null;
  return (
    <p data-testid="campaign-cost">
      Estimated cost: <strong>{formatMicros(cost.estimated, cost.currency)}</strong>
      {spend.data !== null && spend.data !== undefined && <> · charged so far: {formatMicros(spend.data, cost.currency)}</>}
    </p>
  );
}

export function CampaignDetail({ campaignId }: { campaignId: string }) {
  const { client, canSend } = useSession();
  const [cancelling, setCancelling] = useState(false);
  const [notice, setNotice] = useNotice();
  const campaign = useAsync(() => ok(client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId } } })), [campaignId]);
  const c = campaign.data;
  // Live while it sends; a scheduled one is looked at now and then, to see it start.
  usePolling(
    campaign.reload,
    c?.status === "sending" ? 1000 : 5000,
    c?.status === "sending" || c?.status === "scheduled" || c?.status === "paused",
  );

  return (
    <section>
      <p>
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <h1 tabIndex={-1}>{c ? `Campaign “${c.name}”` : "Campaign"}</h1>
      <ProblemMessage error={campaign.error} />
      {!c && campaign.loading && <Loading what="the campaign" />}
      {notice && <Notice>{notice}</Notice>}
      {c && (
        <>
          <div class="card">
            <p class="status-line">
              Status: <StatusChip status={c.status} />
              {c.status !== "completed" && c.status !== "cancelled" && canSend && (
                <button type="button" class="danger" onClick={() => setCancelling(true)}>
                  {c.status === "draft" ? "Discard draft" : "Cancel campaign"}
                </button>
              )}
            </p>
            <CampaignControls
              campaign={c}
              onChanged={(text) => {
                setNotice(text);
                void campaign.reload();
              }}
            />
            {c.status === "draft" && canSend && (
              <EditDraft
                key={`${c.name} ${c.scheduledAt ?? ""}`}
                campaign={c}
                onSaved={(text) => {
                  setNotice(text);
                  void campaign.reload();
                }}
              />
            )}
            {c.status === "scheduled" && canSend && (
              <Reschedule
                campaign={c}
                onMoved={(at) => {
                  setNotice(`Campaign moved: it starts ${formatTime(at)}.`);
                  void campaign.reload();
                }}
              />
            )}
            <CampaignProgress campaign={c} />
            <CampaignCost campaign={c} live={c.status === "sending"} />
            {c.status !== "scheduled" && c.status !== "draft" && (
              <ProgressOverTime campaignId={c.campaignId} since={c.createdAt} live={c.status === "sending"} />
            )}
            {c.stats.deferred > 0 && c.deferredUntil && (
              <p class="notice notice-info" data-testid="campaign-deferred">
                {c.stats.deferred} message{c.stats.deferred === 1 ? " is" : "s are"} held by the account's quiet hours (marketing messages
                wait for the end of the window in each recipient's local time); the last goes at {formatTime(c.deferredUntil)}.
              </p>
            )}
            <p aria-live="polite" class="muted" id="campaign-state">
              {c.status === "completed"
                ? "Completed: every message has its final status."
                : c.status === "sending"
                  ? "Sending… this updates live."
                  : c.status === "paused"
                    ? `Paused${c.pausedAt ? ` since ${formatTime(c.pausedAt)}` : ""}: nothing more is sent until you resume it.`
                    : c.status === "draft"
                      ? "A draft: its audience is taken; nothing is sent until you start it."
                      : ""}
            </p>
          </div>
          <div class="card">
            <dl class="facts">
              <dt>Message</dt>
              <dd class="pre">{c.message}</dd>
              <dt>From</dt>
              <dd>{c.from}</dd>
              <dt>Audience</dt>
              <dd>{c.groupId ? <GroupName groupId={c.groupId} /> : "pasted numbers"}</dd>
              <dt>{c.type === "scheduled" ? "Scheduled for" : "Created"}</dt>
              <dd>{formatTime(c.scheduledAt ?? c.createdAt)}</dd>
              <dt>Category</dt>
              <dd>{c.category}</dd>
              <dt>Priority</dt>
              <dd>{c.priority}</dd>
              <dt>Valid for</dt>
              <dd>{c.validityPeriod === null ? "no limit" : `${c.validityPeriod} s after each message is due`}</dd>
              <dt>Smart encoding</dt>
              <dd>{c.smartEncoding ? "yes: look-alike characters are replaced when that makes a message GSM-7" : "no"}</dd>
              <dt>Reference</dt>
              <dd>{c.reference ?? <span class="muted">none</span>}</dd>
              <dt>Metadata</dt>
              <dd>
                <MetadataTable metadata={c.metadata} label="Metadata of the campaign" />
              </dd>
            </dl>
            <p>
              <Link to={`/messages?campaignId=${c.campaignId}`}>See its messages</Link>
            </p>
          </div>
          <ConfirmDialog
            open={cancelling}
            title={c.status === "draft" ? "Discard this draft?" : "Cancel this campaign?"}
            confirmLabel={c.status === "draft" ? "Discard draft" : "Cancel campaign"}
            danger
            onClose={() => setCancelling(false)}
            onConfirm={async () => {
              const draft = c.status === "draft";
              await ok(client.POST("/api/v1/campaigns/{campaignId}/cancel", { params: { path: { campaignId } } }));
              setNotice(draft ? "Draft discarded: nothing of it was sent." : "Campaign cancelled: messages not yet sent will not be sent.");
              await campaign.reload();
            }}
          >
            {c.status === "draft" ? (
              <p>Nothing of it has been sent. What its cost held of the balance goes back; it stays in the list as cancelled.</p>
            ) : (
              <p>Every message of it not yet sent is cancelled. Messages already sent are not recalled.</p>
            )}
          </ConfirmDialog>
        </>
      )}
    </section>
  );
}

/** A scheduled campaign that has not started, moved to another time (in the browser's zone, sent as UTC). */
function Reschedule({ campaign, onMoved }: { campaign: Campaign; onMoved: (at: string) => void }) {
  const { client } = useSession();
  const [when, setWhen] = useState(() => toLocalInput(new Date(campaign.scheduledAt ?? Date.now())));
  const utc = localInputToUtc(when);
  const move = useAction(async () => {
    const moved = await ok(
      client.PATCH("/api/v1/campaigns/{campaignId}", {
        params: { path: { campaignId: campaign.campaignId } },
        body: { scheduledAt: utc ?? when },
      }),
    );
    onMoved(moved.scheduledAt!);
  });
  return (
    <TitledForm titleId="reschedule-title" title="Reschedule" heading="h3" plain onSubmit={() => void move.run()}>
      <InputField
        id="reschedule-at"
        label="Start at"
        hint={`Your time zone: ${timeZone()}. Its messages move with it, until it starts.`}
        type="datetime-local"
        required
        {...bound(when, setWhen, move.error, "/body/scheduledAt")}
      />
      <ProblemMessage error={move.error} prefix="Not moved" />
      <div class="actions">
        <button type="submit" disabled={move.busy}>
          Move the campaign
        </button>
      </div>
    </TitledForm>
  );
}
