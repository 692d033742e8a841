// The history bench:history and bench:reporting build: ACCOUNTS accounts (the first with a fifth of the
// messages and a campaign), a webhook each, and n messages over the last DAYS days written in SQL in time order
// with their two history entries and two receipt deliveries.
import { createKeyForAccount } from "../server/operator/index.js";
import { progress, type BenchDb } from "./lib.js";

export const ACCOUNTS = 50;
export const DAYS = 401;
const BATCH = 250_000;

export interface Side {
  name: string;
  bench: BenchDb;
  key: string;
  bigAccountId: string;
  campaignId: string;
  webhookId: string;
}

/** The accounts, their webhooks (to `webhookUrl`) and the big account's campaign, on a fresh database. */
export async function prepareHistory(name: string, bench: BenchDb, webhookUrl: string): Promise<Side> {
  const { db } = bench;
  let big: { key: string; accountId: string } | undefined;
  for (let a = 0; a < ACCOUNTS; a++) {
    const created = await createKeyForAccount(db, `history-${a}`);
    big ??= created;
    await db("webhooks").insert({ account_id: created.accountId, name: "receipts", url: webhookUrl, secret: "whsec_bench" });
  }
  const [campaign] = await db("campaigns")
    .insert({ account_id: big!.accountId, name: "history", message: "x", type: "instant", sender: "ACME", status: "completed" })
    .returning("id");
  const webhook = await db("webhooks").where({ account_id: big!.accountId }).first("id");
  return { name, bench, key: big!.key, bigAccountId: big!.accountId, campaignId: campaign.id, webhookId: webhook.id };
}

export /** The history, in time order as it would have been written: BATCH messages a statement, each its own transaction. */
async function buildHistory(side: Side, n: number): Promise<number> {
  const { db } = side.bench;
  const bar = progress(`${side.name} history (${n.toLocaleString("en")})`, n);
  const t0 = Date.now();
  const v7 = (ts: string) =>
    `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM ${ts}) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;
  for (let from = 1; from <= n; from += BATCH) {
    const to = Math.min(n, from + BATCH - 1);
    await db.raw(
      `WITH accounts AS (SELECT array_agg(id ORDER BY name) AS ids FROM accounts WHERE name LIKE 'history-%'),
       src AS (
         SELECT g, now() - make_interval(days => ${DAYS}) + (g::double precision / ?) * make_interval(days => ${DAYS - 1}) AS at,
                a.ids[CASE WHEN g % 5 = 0 THEN 1 ELSE 2 + g % ${ACCOUNTS - 1} END] AS account_id
           FROM generate_series(?::int, ?::int) g, accounts a
       ), m AS (
         INSERT INTO messages (id, account_id, campaign_id, job_id, recipient, sender, body, status, scheduled_at, sent_at,
                               delivered_at, failed_at, provider_message_id, segments, encoding, error_code, error_message, created_at)
         SELECT ${v7("at")}, account_id, CASE WHEN g % 50 = 0 THEN ?::uuid END, gen_random_uuid(),
                '+1415' || lpad((g % 10000000)::text, 7, '0'), 'ACME', 'Your appointment is tomorrow at 10:00. Reply STOP to opt out.',
                CASE WHEN g % 100 = 7 THEN 'failed' ELSE 'delivered' END, at, at + interval '1 second',
                CASE WHEN g % 100 = 7 THEN NULL ELSE at + interval '3 seconds' END,
                CASE WHEN g % 100 = 7 THEN at + interval '3 seconds' END, 'sim-' || ${v7("at")},
                1, 'GSM-7', CASE WHEN g % 100 = 7 THEN 'rejected' END, CASE WHEN g % 100 = 7 THEN 'refused by the carrier' END, at
           FROM src
         RETURNING id, account_id, status, created_at, provider_message_id
       ), w AS (SELECT account_id, id FROM webhooks)
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, status, attempts, created_at, finished_at)
       SELECT ${v7("m.created_at + s.offs")}, w.id, m.account_id, m.id, 'dlr.' || s.status, s.seq,
              json_build_object('event', 'dlr.' || s.status, 'timestamp', m.created_at + s.offs, 'messageId', m.id,
                                'to', '+14155550100', 'status', s.status, 'providerMessageId', m.provider_message_id)::text,
              'succeeded', jsonb_build_array(jsonb_build_object('at', m.created_at + s.offs, 'responseStatus', 200, 'error', null, 'durationMs', 3)),
              m.created_at + s.offs, m.created_at + s.offs + interval '5 milliseconds'
         FROM m JOIN w ON w.account_id = m.account_id,
              LATERAL (VALUES ('sent', interval '1 second', 1), (m.status, interval '3 seconds', 2)) s(status, offs, seq)`,
      [n, from, to, side.campaignId],
    );
    bar.update(to);
  }
  bar.stop();
  await db.raw("VACUUM ANALYZE");
  await db.raw("CHECKPOINT");
  return (Date.now() - t0) / 1000;
}
