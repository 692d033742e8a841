// The jobs table: every statement on it lives in this folder (one small module per operation), and so do the
// kind map, the insert fragment and the wake-up rule that statements elsewhere embed.
export { cancelPendingJob, cancelPendingJobsSql } from "./cancelPendingJobs.js";
export { claimJobs, type Claim } from "./claimJobs.js";
export { completeHeldJobsSql, completeJobs } from "./completeJobs.js";
export { deleteFinalizedJobs } from "./deleteFinalizedJobs.js";
export { extendLeases } from "./extendLeases.js";
export { failJob, snoozeJobs } from "./failJob.js";
export { makeCampaignSendsDue } from "./makeCampaignSendsDue.js";
export { makeCappedSendsDue } from "./makeCappedSendsDue.js";
export { makeHeldSendsDue } from "./makeHeldSendsDue.js";
export { makePoolSendsDue } from "./makePoolSendsDue.js";
export { moveJobsSql } from "./moveJobs.js";
export { parkCampaignSends } from "./parkCampaignSends.js";
export { insertJobs, insertJobsSql, insertUntypedJobs, type NewJob, type NewUntypedJob } from "./insertJobs.js";
export { MAX_ATTEMPTS, type JobKind, type JobKinds, type JobPayload } from "./kinds.js";
export { JOB_LANE_SQL, LANE_OF_KIND, laneOf, type JobLane } from "./lanes.js";
export { readQueueHealth, type QueueHealth } from "./readQueueHealth.js";
export { recallSnoozedReceipts } from "./recallSnoozedReceipts.js";
export { releaseJobs } from "./releaseJobs.js";
export { rescheduleJobs } from "./rescheduleJobs.js";
export { rescueExpiredJobs } from "./rescueExpiredJobs.js";
export { unpinJobs } from "./unpinJobs.js";
export type { ClaimedJob, JobHandoff, JobRow, JobState } from "./types.js";
export {
  JOBS_CHANNEL,
  laneNowPayloadSql,
  NOTIFY_HORIZON_MS,
  notifyWhenSql,
  notifyWorkers,
  parseWakeUpPayload,
  wakeUpPayload,
} from "./wakeUp.js";
