export type JobState = "available" | "running" | "retryable" | "completed" | "cancelled" | "discarded";

export interface JobRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempt: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
}

export const jobColumns = {
  id: "id",
  kind: "kind",
  payload: "payload",
  attempt: "attempt",
  maxAttempts: "max_attempts",
  runAt: "run_at",
  createdAt: "created_at",
};
