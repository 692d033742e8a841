// Schedule a message for tomorrow, read it back, and cancel it.
//   SMS_API_KEY=sms_... node --import tsx client/examples/schedule-and-cancel.ts
import { randomUUID } from "node:crypto";
import type { SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

export async function scheduleAndCancel(sms: SmsClient) {
  // Make the key once per message and send the same one when retrying: a retry then creates nothing new.
  const idempotencyKey = randomUUID();
  const scheduled = ok(
    await sms.POST("/api/v1/scheduler/schedule", {
      params: { header: { "Idempotency-Key": idempotencyKey } },
      body: {
        to: "+1 415 555 0143", // stored as +14155550143
        body: "Your table is ready",
        from: "ACME",
        scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
      },
    }),
  );
  const path = { params: { path: { messageId: scheduled.messageId } } };
  const message = ok(await sms.GET("/api/v1/messages/{messageId}", path));
  console.log(`${message.status}: ${message.segments} segment(s), ${message.encoding}`); // scheduled: 1 segment(s), GSM-7

  // Until sending begins; after that the answer is 409 not_cancellable.
  const cancelled = ok(await sms.DELETE("/api/v1/scheduler/cancel/{messageId}", path));
  console.log(`${cancelled.status} at ${cancelled.cancelledAt}`); // cancelled at 2026-…
  return { scheduled, cancelled };
}

if (isMain(import.meta.url)) await scheduleAndCancel(clientFromEnv());
