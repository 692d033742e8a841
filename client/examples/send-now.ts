// Send a one-time code now with your own reference, then a batch of distinct messages.
//   SMS_API_KEY=sms_... node --import tsx client/examples/send-now.ts
import type { SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

export async function sendNowAndBatch(sms: SmsClient) {
  // No scheduledAt: sent at once. The reference comes back on the message and in every receipt.
  const code = ok(
    await sms.POST("/api/v1/messages", {
      body: { to: "+14155550142", body: "Your code is 482913", from: "ACME", reference: "login-7731", validityPeriod: 300 },
    }),
  );
  console.log(`one-time code ${code.messageId}: ${code.status}`); // one-time code …: scheduled (already on its way)

  // Up to 10,000 different texts in one call: every valid item stored, every invalid one reported by index.
  const orders = [
    { id: "A-1042", phone: "+14155550144" }, // the examples' own numbers: none the walk-through uses
    { id: "A-1043", phone: "+449098765432" }, // premium-rate: refused on its own
  ];
  const batch = ok(
    await sms.POST("/api/v1/messages/batch", {
      body: {
        messages: orders.map((o) => ({ to: o.phone, body: `Order ${o.id} has shipped.`, from: "ACME", reference: o.id })),
      },
    }),
  );
  for (const r of batch.results) {
    // Why an item was refused: its code, e.g. recipient_opted_out for a number on the opt-out list.
    if ("error" in r) console.log(`${orders[r.index]!.id} refused: ${r.error.code}`); // A-1043 refused: destination_not_allowed
  }
  console.log(`batch: ${batch.accepted} accepted, ${batch.rejected} refused`); // batch: 1 accepted, 1 refused
  return { code, batch };
}

if (isMain(import.meta.url)) await sendNowAndBatch(clientFromEnv());
