// The accounts table: an account's name, and what the operator decides for it (suspension and limits,
// migration 026). The account reads its limits; only the operator API changes them.
import { accountName } from "./accountNames.js";
import { isUniqueViolation } from "../db/errors.js";
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";

/** What the operator allows an account (null: no limit of that kind). */
export interface AccountLimits {
  weight: number;
  dailySegmentQuota: number | null;
  allowedCountries: string[] | null;
  /** E.164 prefixes this account may not send to (beside the deployment's BLOCKED_PREFIXES). */
  blockedPrefixes: string[];
  senderIds: string[] | null;
  selfServiceNumbers: boolean;
  maxSegmentsPerSecond: number | null;
  /** Billing (docs/BILLING.md): micro-units of `currency`. */
  currency: string;
  priceList: string | null;
  billing: "prepaid" | "postpaid";
  creditLimit: number;
  lowBalanceThreshold: number | null;
  chargeOn: "submitted" | "delivered";
}

/** An account as a request sees it (read with its key, in the same statement). */
export interface Account {
  id: string;
  name: string;
  /** The account `npm start` made on an empty database: it keeps self-service numbers. */
  firstStart?: boolean;
  limits?: AccountLimits;
}

export interface AccountRow {
  id: string;
  name: string;
  createdAt: Date;
  suspended: boolean;
  firstStart: boolean;
  limits: AccountLimits;
}

/** The SQL select list of an account's limits, columns of alias `a`, as an AccountLimits-shaped json. */
export const ACCOUNT_LIMITS_JSON = sql`json_build_object(
  'weight', a.weight, 'dailySegmentQuota', a.daily_segment_quota, 'allowedCountries', a.allowed_countries,
  'blockedPrefixes', a.blocked_prefixes,
  'senderIds', a.sender_ids, 'selfServiceNumbers', a.self_service_numbers, 'maxSegmentsPerSecond', a.max_segments_per_second,
  'currency', a.currency, 'priceList', a.price_list, 'billing', a.billing, 'creditLimit', a.credit_limit,
  'lowBalanceThreshold', a.low_balance_threshold, 'chargeOn', a.charge_on)`;

const columns = (db: Knex) => [
  "a.id",
  "a.name",
  "a.created_at as createdAt",
  "a.suspended",
  "a.first_start as firstStart",
  sql`${ACCOUNT_LIMITS_JSON} AS limits`.forBuilder(db),
];

/** Returns the account with this name (as accountNameKey compares names), creating it if needed. */
export async function ensureAccount(db: Knex, requested: string, opts: { firstStart?: boolean } = {}): Promise<Account> {
  const name = accountName(requested, "name");
  const [row] = await db("accounts")
    .insert({ name: name.name, name_key: name.key, first_start: opts.firstStart ?? false })
    .onConflict("name_key")
    .merge({ name_key: name.key })
    .returning(["id", "name"]);
  return row as Account;
}

/**
 * True when an insert failed for a name taken (as accountNameKey compares names): the same name exactly may
 * meet the older unique index on `name` first, which stays for a release before migration 041.
 */
export const isAccountNameTaken = (error: unknown): boolean =>
  isUniqueViolation(error, "accounts_name_fold_key") || isUniqueViolation(error, "accounts_name_key");

/** Creates an account (its name trimmed; 400 when only spaces); throws a unique violation (isAccountNameTaken) when the name is taken. */
export async function insertAccount(db: Knex, requested: string): Promise<AccountRow> {
  const name = accountName(requested);
  const [row] = await db("accounts").insert({ name: name.name, name_key: name.key }).returning<{ id: string }[]>(["id"]);
  return (await getAccount(db, row!.id))!;
}

export async function getAccount(db: Knex, accountId: string): Promise<AccountRow | undefined> {
  return db("accounts as a").where("a.id", accountId).first(columns(db));
}

export async function listAccounts(db: Knex, opts: { after?: CursorKey; limit: number }): Promise<(AccountRow & CursorKey)[]> {
  const query = db("accounts as a").select([...columns(db), cursorAtColumn(db, "a.created_at")]);
  return newestFirstPage(query, opts.after, opts.limit, "a.");
}

/** The operator's change of an account: fields left undefined stay as they are. */
export type AccountChange = Partial<AccountLimits> & { suspended?: boolean };

const COLUMN_OF: Record<keyof AccountChange, string> = {
  suspended: "suspended",
  weight: "weight",
  dailySegmentQuota: "daily_segment_quota",
  allowedCountries: "allowed_countries",
  blockedPrefixes: "blocked_prefixes",
  senderIds: "sender_ids",
  selfServiceNumbers: "self_service_numbers",
  maxSegmentsPerSecond: "max_segments_per_second",
  currency: "currency",
  priceList: "price_list",
  billing: "billing",
  creditLimit: "credit_limit",
  lowBalanceThreshold: "low_balance_threshold",
  chargeOn: "charge_on",
};

/** Applies a change; false when there is no such account. */
export async function updateAccount(db: Knex, accountId: string, change: AccountChange): Promise<boolean> {
  const set = Object.fromEntries(
    Object.entries(change)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [COLUMN_OF[k as keyof AccountChange], v]),
  );
  if (Object.keys(set).length === 0) return (await db("accounts").where({ id: accountId }).first("id")) !== undefined;
  return (await db("accounts").where({ id: accountId }).update(set)) > 0;
}

/**
 * Serialises first starts until the transaction ends: processes started together on an empty database (an
 * all-in-one start beside worker processes) each found no account, and each made account `default`; all but one
 * then died on its unique name. Under this lock the first makes it, the others find it.
 */
export async function lockFirstStart(tx: Knex.Transaction): Promise<void> {
  await run(tx, sql`SELECT pg_advisory_xact_lock(hashtextextended('first start', 0))`);
}

export async function countAccounts(db: Knex): Promise<number> {
  const row = await db("accounts").count<{ count: number }[]>({ count: "*" }).first();
  return Number(row?.count ?? 0);
}
