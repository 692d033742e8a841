import type { Knex } from "knex";
import { ACCOUNT_LIMITS_JSON } from "./accountsTable.js";
import type { AdmittedKeyRow } from "./apiKeysTable.js";
import { prepared, runPrepared } from "../db/prepared.js";
import { sql } from "../db/sql.js";

export interface RateLimit {
  /** Requests per second a key may make, sustained; 0 turns limiting off. */
  perSecond: number;
  /** Requests a key may make at once. */
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Requests that could still be made right now. */
  remaining: number;
  /** Seconds until a request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

export interface Admission {
  /** The active key with this id, or undefined. The caller still compares the secret in constant time. */
  key?: AdmittedKeyRow;
  /** Present when limiting is on and the presented secret's hash matched the stored one. */
  decision?: RateDecision;
}

/**
 * Every API request's authentication and rate limit in one round trip: the key's row, and a GCRA token taken
 * from its account's request bucket (an operator key's own), shared by all the account's keys. GCRA: each request moves the key's theoretical arrival time (tat) one interval
 * (1/rate s) later; it is allowed while tat stays within burst intervals of now. The row lock of the upsert
 * serialises an account's requests across every server instance; different accounts never wait on each other.
 *
 * A token is taken only when the presented secret's SHA-256 equals the stored one, so someone who knows a key
 * id (it is not secret) cannot drain that account's bucket. (The equality here only gates the token; the
 * caller decides authentication with a constant-time comparison.) Measured under the sustained-load test:
 * two statements per request (lookup, then token) held the API to ~265 requests/s with a worker sending
 * beside it on 2 cores; one statement is what this module exists for.
 *
 * The key's maker (a person who made it with a session, migration 059) is joined in the same statement: their
 * role now is what the key may do at most (http/access.ts), and a key whose maker is gone is not found (401).
 */
const admit = prepared(
  "admit_api_request",
  (v: AdmitValues) =>
    sql`WITH k AS (
           SELECT k.key_id, k.kind, k.account_id, a.name, k.name AS key_name, k.scope, k.test, k.expires_at, k.secret_hash,
                  k.created_at, k.revoked_at, k.last_used_at, a.suspended, a.first_start,
                  CASE WHEN a.id IS NOT NULL THEN ${ACCOUNT_LIMITS_JSON} END AS limits,
                  k.created_by_user_id, k.created_by_email, u.role AS maker_role
             FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id
                  LEFT JOIN users u ON u.id = k.created_by_user_id AND u.account_id = k.account_id
            WHERE k.key_id = ${v.keyId} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
              AND (k.created_by_user_id IS NULL OR u.id IS NOT NULL)
         ), attempt AS (
           INSERT INTO rate_buckets AS r (bucket, tat)
           SELECT CASE WHEN account_id IS NULL THEN 'r.key.' || key_id ELSE 'r.' || account_id END,
                  now() + make_interval(secs => ${v.interval}::float8)
             FROM k WHERE k.secret_hash = ${v.secretHash}::bytea
           ON CONFLICT (bucket) DO UPDATE SET tat = greatest(r.tat, now()) + make_interval(secs => ${v.interval}::float8)
            WHERE greatest(r.tat, now()) + make_interval(secs => ${v.interval}::float8) <= now() + make_interval(secs => ${v.window}::float8)
           RETURNING tat
         )
         SELECT k.key_id AS "keyId", k.kind, k.account_id AS "accountId", k.name AS "accountName", k.key_name AS "name",
                k.scope, k.test, k.expires_at AS "expiresAt", k.suspended AS "accountSuspended", k.first_start AS "accountFirstStart",
                k.limits AS "accountLimits", k.created_by_user_id AS "createdByUserId", k.created_by_email AS "createdByEmail",
                k.maker_role AS "makerRole",
                k.secret_hash AS "secretHash", k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt",
                k.secret_hash = ${v.secretHash}::bytea AS limited,
                EXISTS (SELECT 1 FROM attempt) AS allowed,
                EXTRACT(EPOCH FROM coalesce((SELECT tat FROM attempt), (SELECT tat FROM rate_buckets
                  WHERE bucket = CASE WHEN k.account_id IS NULL THEN 'r.key.' || k.key_id ELSE 'r.' || k.account_id END)) - now())::float8 AS ahead
           FROM k`,
);

/** With limiting off there is no token to take: the key's row alone, without the write CTE. */
const findKey = prepared(
  "find_active_api_key",
  (v: { keyId: string }) =>
    sql`SELECT k.key_id AS "keyId", k.kind, k.account_id AS "accountId", a.name AS "accountName", k.name,
                k.scope, k.test, k.expires_at AS "expiresAt", a.suspended AS "accountSuspended", a.first_start AS "accountFirstStart",
                CASE WHEN a.id IS NOT NULL THEN ${ACCOUNT_LIMITS_JSON} END AS "accountLimits",
                k.secret_hash AS "secretHash", k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt",
                k.created_by_user_id AS "createdByUserId", k.created_by_email AS "createdByEmail", u.role AS "makerRole"
           FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id
                LEFT JOIN users u ON u.id = k.created_by_user_id AND u.account_id = k.account_id
          WHERE k.key_id = ${v.keyId} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
            AND (k.created_by_user_id IS NULL OR u.id IS NOT NULL)`,
);

interface AdmitValues {
  keyId: string;
  secretHash: Buffer;
  /** Seconds between two requests at the account's rate, and the burst's span in seconds. */
  interval: number;
  window: number;
}

/** A bulk charge: the bucket, the whole cost and what must be free now (in seconds of the bucket), its window. */
interface ChargeValues {
  bucket: string;
  cost: number;
  needed: number;
  window: number;
}

type AdmitRow = AdmittedKeyRow & { limited: boolean; allowed: boolean; ahead: number | null };

export async function admitApiRequest(db: Knex, keyId: string, secretHash: Buffer, limit: RateLimit): Promise<Admission> {
  if (limit.perSecond <= 0) {
    const [key] = await runPrepared<AdmittedKeyRow, { keyId: string }>(db, findKey, { keyId });
    return { key };
  }
  const interval = 1 / limit.perSecond;
  const [row] = await runPrepared<AdmitRow, AdmitValues>(db, admit, { keyId, secretHash, interval, window: limit.burst * interval });
  if (!row) return {};
  const { limited, allowed, ahead, ...key } = row;
  return { key, decision: limited ? decide(allowed, ahead ?? 0, 1, interval, limit.burst * interval) : undefined };
}

/**
 * A request's bulk rows (campaign recipients, import rows, batch items), charged to the account's bulk bucket
 * once its body is parsed: `tokens` from bucket `b.<accountId>`. GCRA with a cost: tat moves `tokens`
 * intervals later. Allowed when the bucket holds min(tokens, burst - 1) now, and it pays its whole cost: a
 * request larger than the burst needs a (nearly) full bucket and leaves the bulk bucket in debt, so the
 * account's next bulk requests are refused until it is paid; its other requests are not (their bucket is
 * the request bucket).
 */
const charge = prepared(
  "charge_bulk_rows",
  (v: ChargeValues) =>
    sql`WITH attempt AS (
           INSERT INTO rate_buckets AS r (bucket, tat)
           SELECT ${v.bucket}, now() + make_interval(secs => ${v.cost}::float8) WHERE ${v.needed}::float8 <= ${v.window}::float8
           ON CONFLICT (bucket) DO UPDATE SET tat = greatest(r.tat, now()) + make_interval(secs => ${v.cost}::float8)
            WHERE greatest(r.tat, now()) + make_interval(secs => ${v.needed}::float8) <= now() + make_interval(secs => ${v.window}::float8)
           RETURNING tat
         )
         SELECT EXISTS (SELECT 1 FROM attempt) AS allowed,
                EXTRACT(EPOCH FROM coalesce((SELECT tat FROM attempt), (SELECT tat FROM rate_buckets WHERE bucket = ${v.bucket})) - now())::float8 AS ahead`,
);

export async function chargeBulkRows(db: Knex, accountId: string, tokens: number, limit: RateLimit): Promise<RateDecision> {
  return chargeBucket(db, `b.${accountId}`, tokens, limit);
}

/**
 * One request of a person's session, charged to the bucket its account's keys draw from (`r.<accountId>`, as
 * admitApiRequest's), or an operator user's own (`r.user.<userId>`): the dashboard is no way around the limit.
 */
export async function chargeSessionRequest(db: Knex, session: { accountId: string | null; userId: string }, limit: RateLimit) {
  return chargeBucket(db, session.accountId === null ? `r.user.${session.userId}` : `r.${session.accountId}`, 1, limit);
}

async function chargeBucket(db: Knex, bucket: string, tokens: number, limit: RateLimit): Promise<RateDecision> {
  const interval = 1 / limit.perSecond;
  const window = limit.burst * interval;
  const needed = Math.min(tokens, Math.max(0, limit.burst - 1));
  const [row] = await runPrepared<{ allowed: boolean; ahead: number | null }, ChargeValues>(db, charge, {
    bucket,
    cost: tokens * interval,
    needed: needed * interval,
    window,
  });
  return decide(row?.allowed ?? false, row?.ahead ?? 0, needed, interval, window);
}

function decide(allowed: boolean, ahead: number, needed: number, interval: number, window: number): RateDecision {
  const behind = Math.max(0, ahead);
  return {
    allowed,
    remaining: Math.max(0, Math.floor((window - behind) / interval)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(behind + needed * interval - window)),
    resetSeconds: Math.ceil(behind),
  };
}
