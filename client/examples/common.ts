// Shared by the examples: a client from the environment, and `ok`, which turns an error answer into an
// exception so each example reads as the happy path.
import { fileURLToPath } from "node:url";
import { createSmsClient, type components, type SmsClient } from "../index.js";

export type Problem = components["schemas"]["Problem"];

/** An error answer of the API: its RFC 9457 problem document (branch on `problem.code`). */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
  }
}

/** The body of a successful answer; throws ProblemError for an error answer. */
export function ok<T>(result: { data?: T; error?: Problem }): T {
  if (result.error) throw new ProblemError(result.error);
  return result.data as T;
}

/** SMS_API_URL (default http://localhost:3000) and SMS_API_KEY, e.g. the key `npm start` prints first. */
export function clientFromEnv(): SmsClient {
  const apiKey = process.env.SMS_API_KEY;
  if (!apiKey) throw new Error("set SMS_API_KEY to an API key (sms_...)");
  return createSmsClient({ baseUrl: process.env.SMS_API_URL ?? "http://localhost:3000", apiKey });
}

/** True when the module at `url` was started directly (`node --import tsx client/examples/send-now.ts`, say). */
export const isMain = (url: string) => process.argv[1] === fileURLToPath(url);
