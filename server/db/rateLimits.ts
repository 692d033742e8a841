import type { Knex } from "knex";

export interface RateDecision {
  allowed: boolean;
  /** Requests that could still be made right now. */
  remaining: number;
  /** Seconds until a request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

/**
 * GCRA in one statement: each request moves the key's theoretical arrival time (tat) one interval
 * (1/rate s) later; it is allowed while tat stays within burst intervals of now. The row lock of the upsert
 * serialises a key's requests across every server instance; different keys never wait on each other.
 */
export async function takeRateToken(db: Knex, keyId: string, perSecond: number, burst: number): Promise<RateDecision> {
  const interval = 1 / perSecond;
  const window = burst * interval;
  const { rows } = await db.raw(
    `WITH attempt AS (
       INSERT INTO rate_limits AS r (key_id, tat) VALUES (?, now() + make_interval(secs => ?))
       ON CONFLICT (key_id) DO UPDATE SET tat = greatest(r.tat, now()) + make_interval(secs => ?)
        WHERE greatest(r.tat, now()) + make_interval(secs => ?) <= now() + make_interval(secs => ?)
       RETURNING tat, true AS allowed
     )
     SELECT allowed, EXTRACT(EPOCH FROM tat - now()) AS ahead FROM attempt
     UNION ALL
     SELECT false, EXTRACT(EPOCH FROM tat - now()) FROM rate_limits WHERE key_id = ? AND NOT EXISTS (SELECT 1 FROM attempt)`,
    [keyId, interval, interval, interval, window, keyId],
  );
  const { allowed, ahead } = rows[0] as { allowed: boolean; ahead: string };
  const behind = Math.max(0, Number(ahead));
  return {
    allowed,
    remaining: Math.max(0, Math.floor((window - behind) / interval)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(behind + interval - window)),
    resetSeconds: Math.ceil(behind),
  };
}
