// The operator API: accounts with their suspension and limits, their keys, their numbers, and who holds a number.
import { getAccount, isAccountNameTaken, insertAccount, listAccounts, type AccountRow } from "../../operator/index.js";
import { changeAccount, readBalance } from "../../billing/index.js";
import { listAccountKeys } from "../../operator/index.js";
import { readDailyUsage } from "../../operator/index.js";
import type { Db } from "../../db/knex.js";
import { deleteNumber, findNumberHolder, getNumber, listNumbers } from "../../db/numbers.js";
import { fetchPage } from "../../domain/cursor.js";
import { DomainError, notFound } from "../../domain/errors.js";
import { requirePhone } from "../../domain/phone.js";
import { createAccountKey, revokeAccountKey } from "../../operator/index.js";
import { assignNumber } from "../../services/numbers.js";
import { iso, toNumber } from "../serialize.js";
import type { Handlers } from "../types.js";
import { KEY_ID, toCreatedKey, toKeySummary } from "./keys.js";

/** An account as the operator sees it: with today's usage when it has a quota, and its balance. */
export async function toOperatorAccount(db: Db, a: AccountRow) {
  const [usage, balance] = await Promise.all([
    a.limits.dailySegmentQuota === null ? null : readDailyUsage(db, a.id),
    readBalance(db, a.id),
  ]);
  return { accountId: a.id, name: a.name, createdAt: iso(a.createdAt), suspended: a.suspended, limits: a.limits, usage, balance };
}

export async function requireAccount(db: Db, accountId: string): Promise<AccountRow> {
  const account = await getAccount(db, accountId);
  if (!account) throw notFound("Account");
  return account;
}

export const operatorAccountHandlers: Pick<
  Handlers,
  | "OperatorAccounts_create"
  | "OperatorAccounts_list"
  | "OperatorAccounts_get"
  | "OperatorAccounts_update"
  | "OperatorAccountKeys_create"
  | "OperatorAccountKeys_list"
  | "OperatorAccountKeys_revoke"
  | "OperatorAccountNumbers_assign"
  | "OperatorAccountNumbers_list"
  | "OperatorAccountNumbers_revoke"
  | "NumberHolders_get"
> = {
  async OperatorAccounts_create({ db, body }) {
    try {
      return { status: 201, body: await toOperatorAccount(db, await insertAccount(db, body.name)) };
    } catch (error) {
      if (isAccountNameTaken(error))
        throw new DomainError(
          "account_exists",
          `An account named ${body.name.trim()} exists already (names are compared trimmed, ignoring case and width).`,
        );
      throw error;
    }
  },

  async OperatorAccounts_list({ db, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listAccounts(db, w));
    return { status: 200, body: { data: await Promise.all(items.map((a) => toOperatorAccount(db, a))), nextCursor } };
  },

  async OperatorAccounts_get({ db, path }) {
    return { status: 200, body: await toOperatorAccount(db, await requireAccount(db, path.accountId)) };
  },

  async OperatorAccounts_update({ db, path, body }) {
    if (!(await changeAccount(db, path.accountId, body))) throw notFound("Account");
    return { status: 200, body: await toOperatorAccount(db, await requireAccount(db, path.accountId)) };
  },

  async OperatorAccountKeys_create({ db, path, body, now }) {
    await requireAccount(db, path.accountId);
    return { status: 201, body: toCreatedKey(await createAccountKey(db, path.accountId, body, { now: now() })) };
  },

  async OperatorAccountKeys_list({ db, path, query, keyUsage }) {
    await requireAccount(db, path.accountId);
    await keyUsage.flush();
    const { items, nextCursor } = await fetchPage(query, (w) => listAccountKeys(db, path.accountId, w), KEY_ID);
    return { status: 200, body: { data: items.map(toKeySummary), nextCursor } };
  },

  async OperatorAccountKeys_revoke({ db, path }) {
    await revokeAccountKey(db, path.accountId, path.keyId);
    return { status: 204 };
  },

  async OperatorAccountNumbers_assign({ db, path, body }) {
    await requireAccount(db, path.accountId);
    return { status: 201, body: toNumber(await assignNumber(db, path.accountId, body, false)) };
  },

  async OperatorAccountNumbers_list({ db, path, query }) {
    await requireAccount(db, path.accountId);
    const { items, nextCursor } = await fetchPage(query, (w) => listNumbers(db, path.accountId, w));
    return { status: 200, body: { data: items.map(toNumber), nextCursor } };
  },

  async OperatorAccountNumbers_revoke({ db, path }) {
    if (!(await getNumber(db, path.accountId, path.numberId)) || !(await deleteNumber(db, path.accountId, path.numberId))) {
      throw notFound("Number");
    }
    return { status: 204 };
  },

  async NumberHolders_get({ db, query }) {
    const holder = await findNumberHolder(db, requirePhone(query.phoneNumber, "/query/phoneNumber"));
    if (!holder) throw notFound("Holder of the number");
    return { status: 200, body: holder };
  },
};
