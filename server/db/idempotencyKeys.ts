import type { Knex } from "knex";
import { run, sql } from "./sql.js";

/** `responseText`: the first answer's JSON as it was sent (null for one stored by a release before 040). */
export type IdempotencyClaim =
  { owned: true } | { owned: false; requestHash: string; responseStatus: number; responseBody: unknown; responseText: string | null };

/**
 * Claims `key` for this request inside the caller's transaction. A concurrent request with the same key
 * blocks on the primary key until this transaction ends, then sees the stored response, so two racing
 * retries never both create. A key older than 24 h is taken over as if new.
 */
export async function claimIdempotencyKey(
  tx: Knex.Transaction,
  accountId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyClaim> {
  const claimed = await run(
    tx,
    sql`INSERT INTO idempotency_keys (account_id, key, request_hash) VALUES (${accountId}, ${key}, ${requestHash})
     ON CONFLICT (account_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL, response_text = NULL,
           created_at = now()
       WHERE idempotency_keys.created_at < now() - interval '24 hours'
     RETURNING key`,
  );
  if (claimed.rows.length > 0) return { owned: true };
  const row = await tx("idempotency_keys").where({ account_id: accountId, key }).first({
    requestHash: "request_hash",
    responseStatus: "response_status",
    responseBody: "response_body",
    responseText: "response_text",
  });
  return { owned: false, ...row };
}

export async function saveIdempotentResponse(
  tx: Knex.Transaction,
  accountId: string,
  key: string,
  status: number,
  body: unknown,
): Promise<void> {
  // The text the answer is sent as (res.json is JSON.stringify): a replay parses it back, keys in this order.
  const text = JSON.stringify(body);
  await tx("idempotency_keys")
    .where({ account_id: accountId, key })
    .update({ response_status: status, response_body: text, response_text: text });
}

/** Removes keys past their 24 h window; called by the maintenance service. */
export async function deleteExpiredIdempotencyKeys(db: Knex): Promise<number> {
  return db("idempotency_keys").where("created_at", "<", db.raw("now() - interval '24 hours'")).del();
}
