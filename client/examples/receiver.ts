// Receive delivery receipts in an Express app and verify each one with verifyReceipt.
//   WEBHOOK_SECRET=whsec_... node --import tsx client/examples/receiver.ts   (then register http(s)://…/sms/dlr)
// During a secret rotation set WEBHOOK_SECRET to "new,old": either one verifies.
import express from "express";
import { verifyReceipt, type components } from "../index.js";
import { isMain } from "./common.js";

export type DeliveryReceipt = components["schemas"]["DeliveryReceipt"];

export function receiptReceiver(secret: string | string[], onReceipt: (receipt: DeliveryReceipt) => void): express.Express {
  // Ids of receipts already handled. A retry or a redelivery carries the same X-Webhook-Id; in production keep
  // these in your database (a unique key) rather than in memory.
  const handled = new Set<string>();
  const app = express();
  // The signature covers the exact bytes sent: take the raw body, never re-serialised JSON.
  app.post("/sms/dlr", express.raw({ type: "application/json" }), (req, res) => {
    if (!Buffer.isBuffer(req.body) || !verifyReceipt(req.body, req.headers, secret)) {
      res.status(401).end();
      return;
    }
    const id = String(req.headers["x-webhook-id"]);
    if (!handled.has(id)) {
      handled.add(id);
      onReceipt(JSON.parse(req.body.toString("utf8")) as DeliveryReceipt);
    }
    // Answer 2xx within 5 seconds, also for a duplicate; do slow work after answering.
    res.status(204).end();
  });
  return app;
}

if (isMain(import.meta.url)) {
  const secrets = (process.env.WEBHOOK_SECRET ?? "").split(",").filter(Boolean);
  if (secrets.length === 0) throw new Error("set WEBHOOK_SECRET to the webhook's secret (whsec_...)");
  receiptReceiver(secrets, (r) => console.log(r.event, r.messageId, r.status)).listen(8080);
}
