// Create a group with two contacts, send it a campaign, and poll the campaign's live stats until it is done.
//   SMS_API_KEY=sms_... node --import tsx client/examples/campaign.ts
import { setTimeout as sleep } from "node:timers/promises";
import type { SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

export async function groupCampaign(sms: SmsClient, { pollMs = 2000, groupName = `VIP ${new Date().toISOString()}` } = {}) {
  // A group's name is unique in the account (409 group_exists): this one is named by the time it is run.
  const group = ok(await sms.POST("/api/v1/contacts/groups", { body: { name: groupName, description: "Gold card holders" } }));
  for (const contact of [
    { phone: "+447911123456", firstName: "Ada" },
    { phone: "+14155550199", firstName: "Grace" },
  ]) {
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
  // A campaign is `completed` once every message has a final status (or `cancelled`).
  for (;;) {
    const campaign = ok(await sms.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: created.campaignId } } }));
    const { total, scheduled, sent, delivered, failed, undelivered } = campaign.stats;
    console.log(
      `${campaign.status}: ${delivered}/${total} delivered, ${scheduled} scheduled, ${sent} sent, ${failed + undelivered} failed`,
    );
    if (campaign.status === "completed" || campaign.status === "cancelled") return campaign;
    await sleep(pollMs);
  }
}

if (isMain(import.meta.url)) await groupCampaign(clientFromEnv());
