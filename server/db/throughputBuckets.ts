// The throughput caps' GCRA buckets (the table throughput_buckets), shared by every worker process. Times cross this module as
// seconds since the epoch (float8), not Dates: a cap of a few thousand segments a second moves tat by less
// than a millisecond per message, and timestamptz keeps microseconds.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface LockedBuckets {
  /** The database's clock when the locks were held (seconds since the epoch). */
  now: number;
  /** Each key's tat (seconds since the epoch). */
  tats: Map<string, number>;
}

/**
 * Locks the buckets of `keys` for the transaction (creating those that do not exist yet, empty), in key order —
 * every caller locks in that order, so two transactions never wait on each other crosswise — and reads them.
 */
export async function lockThroughputBuckets(tx: Knex.Transaction, keys: string[]): Promise<LockedBuckets> {
  const sorted = [...new Set(keys)].sort();
  const read = async () =>
    (
      await run<{ key: string; tat: number; now: number }>(
        tx,
        sql`SELECT key, EXTRACT(EPOCH FROM tat)::float8 AS tat, EXTRACT(EPOCH FROM clock_timestamp())::float8 AS now
              FROM throughput_buckets WHERE key = ANY(${sorted}::text[]) ORDER BY key FOR UPDATE`,
      )
    ).rows;
  let rows = await read();
  if (rows.length < sorted.length) {
    // Once per key ever. A concurrent creator's row is kept (DO NOTHING waits for its commit).
    await run(
      tx,
      sql`INSERT INTO throughput_buckets (key, tat) SELECT k, now() FROM unnest(${sorted}::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING`,
    );
    rows = await read();
  }
  const now = rows.length > 0 ? rows[0]!.now : await readClock(tx);
  return { now: Math.max(now, ...rows.map((r) => r.now)), tats: new Map(rows.map((r) => [r.key, r.tat])) };
}

/** Writes the buckets' new tats (seconds since the epoch); the caller holds their locks. */
export async function updateThroughputBuckets(tx: Knex.Transaction, tats: Map<string, number>): Promise<void> {
  if (tats.size === 0) return;
  await run(
    tx,
    sql`UPDATE throughput_buckets b SET tat = to_timestamp(u.tat)
          FROM unnest(${[...tats.keys()]}::text[], ${[...tats.values()]}::float8[]) AS u(key, tat) WHERE b.key = u.key`,
  );
}

/** The tats of the buckets of `keys` that exist, unlocked (seconds since the epoch). */
export async function readThroughputTats(db: Knex, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await run<{ key: string; tat: number }>(
    db,
    sql`SELECT key, EXTRACT(EPOCH FROM tat)::float8 AS tat FROM throughput_buckets WHERE key = ANY(${keys}::text[])`,
  );
  return new Map(rows.map((r) => [r.key, r.tat]));
}

/** Forgets buckets (a connector's promised turns when its cap changed): a key read again starts empty. */
export async function forgetThroughputBuckets(db: Knex, keys: string[]): Promise<void> {
  await run(db, sql`DELETE FROM throughput_buckets WHERE key = ANY(${keys}::text[])`);
}

/** The database's clock now, in seconds (every worker's buckets and books are timed by it, not by its own). */
export async function readClock(db: Knex): Promise<number> {
  const { rows } = await run<{ now: number }>(db, sql`SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8 AS now`);
  return rows[0]!.now;
}
