// Receive the messages people send to your numbers (the `message.received` event) and answer each one.
//   SMS_API_KEY=sms_... WEBHOOK_SECRET=whsec_... node --import tsx client/examples/replies.ts
// Register http(s)://…/sms/inbound with `events: ["message.received"]`. STOP, START and HELP are answered by the
// service itself (and reach you too, as ordinary messages and as contact.opted_out / contact.opted_in events).
import express from "express";
import { verifyReceipt, type components, type SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

export type MessageReceived = components["schemas"]["MessageReceivedEvent"];

export function replyingReceiver(client: SmsClient, secret: string | string[], answer: (m: MessageReceived) => string | null) {
  const handled = new Set<string>(); // in production: a unique key in your database
  const app = express();
  app.post("/sms/inbound", express.raw({ type: "application/json" }), (req, res) => {
    // Events are signed exactly like delivery receipts: verify the raw bytes first.
    if (!Buffer.isBuffer(req.body) || !verifyReceipt(req.body, req.headers, secret)) {
      res.status(401).end();
      return;
    }
    const id = String(req.headers["x-webhook-id"]);
    const event = JSON.parse(req.body.toString("utf8")) as MessageReceived;
    res.status(204).end(); // answer within 5 seconds; the reply is sent after
    if (event.event !== "message.received" || handled.has(id)) return;
    handled.add(id);
    const text = answer(event);
    if (text === null) return;
    // The reply goes from the number they wrote to; a number that opted out gets 422 recipient_opted_out.
    void client
      .POST("/api/v1/scheduler/schedule", {
        body: { to: event.from, from: event.to, body: text, scheduledAt: new Date(Date.now() + 2000).toISOString() },
      })
      .then(ok)
      .then((reply) => console.log(`answered ${event.messageId} with ${reply.messageId}`))
      .catch((error: unknown) => console.error(`could not answer ${event.messageId}:`, error));
  });
  return app;
}

if (isMain(import.meta.url)) {
  const secrets = (process.env.WEBHOOK_SECRET ?? "").split(",").filter(Boolean);
  if (secrets.length === 0) throw new Error("set WEBHOOK_SECRET to the webhook's secret (whsec_...)");
  replyingReceiver(clientFromEnv(), secrets, (m) => `Thanks, we got "${m.body.slice(0, 40)}". We'll be in touch.`).listen(8081);
}
