// Create a group with two contacts, send it a campaign, and follow its live stats until nothing is left in flight.
//   SMS_API_KEY=sms_... node --import tsx client/examples/campaign.ts
import { setTimeout as sleep } from "node:timers/promises";
import type { SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

/** The example's own contacts: numbers the walk-through (docs/WALKTHROUGH.md) never uses. */
export const CAMPAIGN_CONTACTS = [
  { phone: "+447911123458", firstName: "Ada" },
  { phone: "+14155550145", firstName: "Grace" },
];

export async function groupCampaign(
  sms: SmsClient,
  { pollMs = 2000, timeoutMs = 120_000, groupName = `VIP ${new Date().toISOString()}` } = {},
) {
  // A group's name is unique in the account (409 group_exists): this one is named by the time it is run.
  const group = ok(await sms.POST("/api/v1/contacts/groups", { body: { name: groupName, description: "Gold card holders" } }));
  for (const contact of CAMPAIGN_CONTACTS) {
    const made = await sms.POST("/api/v1/contacts", { body: { ...contact, groupId: group.groupId } });
    if (made.error?.code !== "contact_exists") {
      ok(made);
      continue;
    }
    // A phone is unique in the account too: a contact kept from an earlier run joins this group instead.
    const [existing] = ok(await sms.GET("/api/v1/contacts", { params: { query: { phones: [contact.phone] } } })).data;
    const path = { contactId: existing!.contactId };
    ok(await sms.PATCH("/api/v1/contacts/{contactId}", { params: { path }, body: { groupId: group.groupId } }));
  }

  const created = ok(
    await sms.POST("/api/v1/campaigns", {
      body: { name: "Promo", message: "Hi {{firstName}}, 30% off today", type: "instant", groupId: group.groupId },
    }),
  );
  // Follow it until every message has a final status, or is held by the account's quiet hours (a marketing
  // message due inside them waits, hours perhaps, until they end there: reported, not waited for), at most
  // timeoutMs. A campaign is `completed` once every message has a final status.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const campaign = ok(await sms.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: created.campaignId } } }));
    const { total, scheduled, deferred, sent, delivered, failed, undelivered, cancelled, optedOut, skipped } = campaign.stats;
    const inFlight = scheduled - deferred + sent; // neither final nor held
    console.log(
      `${campaign.status}: ${total} messages, ${delivered} delivered, ${sent} sent, ${scheduled - deferred} scheduled, ` +
        `${deferred} deferred, ${failed + undelivered} failed, ${cancelled} cancelled; ${optedOut} opted out, ${skipped} skipped`,
    );
    const made = total + optedOut + skipped === CAMPAIGN_CONTACTS.length; // every recipient has its message, or none
    const settled = campaign.status === "completed" || campaign.status === "cancelled" || (made && inFlight === 0);
    if (settled || campaign.status === "paused" || Date.now() >= deadline) {
      // What holds the messages not yet final.
      if (deferred > 0) console.log(`${deferred} deferred until ${campaign.deferredUntil} (the account's quiet hours)`);
      if (optedOut > 0) console.log(`${optedOut} opted out: no message made (DELETE /api/v1/opt-outs/{phone} to send again)`);
      for (const [reason, count] of Object.entries(campaign.stats.skippedBy)) console.log(`${count} skipped: ${reason}`);
      if (campaign.status === "paused") console.log(`paused at ${campaign.pausedAt}: resume it to send the rest`);
      else if (!settled)
        console.log(`${inFlight} still in flight after ${timeoutMs / 1000} s; GET /api/v1/campaigns/${campaign.campaignId} follows it`);
      return campaign;
    }
    await sleep(pollMs);
  }
}

if (isMain(import.meta.url)) await groupCampaign(clientFromEnv());
