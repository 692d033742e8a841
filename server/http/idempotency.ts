import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { claimIdempotencyKey, saveIdempotentResponse } from "../db/idempotencyKeys.js";
import type { Db } from "../db/knex.js";
import { DomainError } from "../domain/errors.js";

/** Hash of a JSON body independent of key order, so a retry that reorders fields still matches. */
function requestHash(body: unknown): string {
  const canonical = JSON.stringify(body, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Runs `work` in a transaction. With an Idempotency-Key, a repeat of the same key and body within 24 h
 * returns the first response without running `work`; the same key with another body is a 409. The key and
 * the work commit together, so a crash in between leaves neither.
 */
export async function withIdempotency<R extends { status: number; body?: unknown }>(
  db: Db,
  accountId: string,
  key: string | undefined,
  body: unknown,
  work: (tx: Knex.Transaction) => Promise<R>,
): Promise<R> {
  return db.transaction(async (tx) => {
    if (key === undefined) return work(tx);
    const hash = requestHash(body);
    const claim = await claimIdempotencyKey(tx, accountId, key, hash);
    if (!claim.owned) {
      if (claim.requestHash !== hash) {
        throw new DomainError("idempotency_key_reused", "This Idempotency-Key was used with a different request body.");
      }
      // Parsed from the text it was first sent as, so it is sent again byte for byte (string keys keep their order).
      const body: unknown = claim.responseText === null ? claim.responseBody : JSON.parse(claim.responseText);
      return { status: claim.responseStatus, body } as R;
    }
    const result = await work(tx);
    await saveIdempotentResponse(tx, accountId, key, result.status, result.body);
    return result;
  });
}
