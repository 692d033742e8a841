// SMPP credentials as the operator manages them (docs/SMPP.md, "For client applications"), and a bind's check
// of them. The password is hashed (smppPasswords.ts) and shown only in the answer that made it.
import { BlockList, isIP } from "node:net";
import type { Knex } from "knex";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { insertAuditEvent } from "./auditEventsTable.js";
import { hashSmppPassword, smppPasswordMatches } from "./smppPasswords.js";
import { ADDRESS_FAILURES, LOCK_AFTER_FAILURES, LOCK_MS } from "./userRoles.js";
import { addressRetryAfter, recordAddressFailure } from "./usersTable.js";
import {
  clearBindFailures,
  countBindAttempt,
  lockSmppCredential,
  unlockSmppCredential,
  deleteSmppCredential,
  findSmppCredential,
  insertSmppCredential,
  updateSmppCredential,
  type SmppCredentialFields,
  type SmppCredentialRow,
} from "./smppCredentialsTable.js";

export interface SmppCredentialInput {
  password?: string;
  maxBinds?: number;
  submitsPerSecond?: number;
  window?: number;
  allowedIps?: string[];
  messageIdFormat?: "uuid" | "hex" | "decimal";
  test?: boolean;
}

export async function createSmppCredential(
  db: Knex,
  accountId: string,
  input: SmppCredentialInput & { systemId: string; password: string },
): Promise<SmppCredentialRow> {
  const fields: SmppCredentialFields = {
    passwordHash: await hashSmppPassword(input.password),
    maxBinds: input.maxBinds ?? 4,
    submitsPerSecond: input.submitsPerSecond ?? 50,
    window: input.window ?? 10,
    allowedIps: checkedBlocks(input.allowedIps ?? []),
    messageIdFormat: input.messageIdFormat ?? "uuid",
    test: input.test ?? false,
  };
  const row = await insertSmppCredential(db, accountId, input.systemId, fields);
  if (!row) throw new DomainError("system_id_exists", `SMPP credentials with system_id ${input.systemId} exist already.`);
  return row;
}

export async function changeSmppCredential(db: Knex, accountId: string, systemId: string, input: SmppCredentialInput) {
  const row = await updateSmppCredential(db, accountId, systemId, {
    passwordHash: input.password === undefined ? undefined : await hashSmppPassword(input.password),
    maxBinds: input.maxBinds,
    submitsPerSecond: input.submitsPerSecond,
    window: input.window,
    allowedIps: input.allowedIps && checkedBlocks(input.allowedIps),
    messageIdFormat: input.messageIdFormat,
    test: input.test,
  });
  if (!row) throw notFound("SMPP credentials");
  return row;
}

export async function removeSmppCredential(db: Knex, accountId: string, systemId: string): Promise<void> {
  if (!(await deleteSmppCredential(db, accountId, systemId))) throw notFound("SMPP credentials");
}

/** Each block valid (an address, or an address and a prefix length); 400 naming the first that is not. */
function checkedBlocks(blocks: string[]): string[] {
  blocks.forEach((block, i) => {
    if (!parseBlock(block)) throw invalidField(`/body/allowedIps/${i}`, "must be an IPv4 or IPv6 address, or one with a /prefix length");
  });
  return blocks;
}

function parseBlock(block: string): { address: string; prefix: number; type: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText, extra] = block.split("/");
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, type: version === 4 ? "ipv4" : "ipv6" };
}

/** Whether a client address may bind with credentials whose list is `blocks` (empty: any). */
export function addressAllowed(blocks: string[], address: string): boolean {
  if (blocks.length === 0) return true;
  const list = new BlockList();
  for (const block of blocks) {
    const b = parseBlock(block);
    if (b) list.addSubnet(b.address, b.prefix, b.type);
  }
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const type = isIP(plain) === 6 ? "ipv6" : "ipv4";
  return list.check(plain, type);
}

/** Why a bind's check refused it: the code it answers with follows (clientSession.ts). */
export type BindRefusal = "unknown_system_id" | "wrong_password" | "locked" | "address_slowed";

/**
 * A bind's check, hardened as sign-ins are (users.ts, signIn): the credentials when system_id and password match;
 * else why not. Every attempt of a known system_id is counted before its password is checked, so at most ten are
 * checked in a 15-minute window (concurrent ones included): the tenth failure locks it for 15 minutes (audited
 * as `smppCredentials.lock`), and while locked every bind is refused, the right password included. Failures from
 * one client address (30 in 15 minutes, counted apart from sign-ins' under `smpp:<address>`) slow that address:
 * its binds are refused before any check until its window ends. An unknown system_id and a wrong password cost
 * one password hash each, so they take the same time.
 */
export async function checkSmppLogin(
  db: Knex,
  systemId: string,
  password: string,
  address: string,
): Promise<{ credential: SmppCredentialRow } | { credential: undefined; refusal: BindRefusal }> {
  const from = `smpp:${address}`;
  if ((await addressRetryAfter(db, from, ADDRESS_FAILURES, LOCK_MS)) > 0) return { credential: undefined, refusal: "address_slowed" };
  const attempt = await countBindAttempt(db, systemId, LOCK_MS);
  if (attempt === "locked" || (attempt !== undefined && attempt > LOCK_AFTER_FAILURES)) {
    await recordAddressFailure(db, from, LOCK_MS);
    return { credential: undefined, refusal: "locked" };
  }
  const row = attempt === undefined ? undefined : await findSmppCredential(db, systemId);
  if (row && (await smppPasswordMatches(password, row.passwordHash))) {
    await clearBindFailures(db, systemId);
    return { credential: row };
  }
  if (!row) await smppPasswordMatches(password, undefined); // the same time as a wrong password
  await recordAddressFailure(db, from, LOCK_MS);
  if (row && attempt !== undefined && attempt >= LOCK_AFTER_FAILURES) {
    const locked = await lockSmppCredential(db, systemId, LOCK_MS);
    if (locked)
      await insertAuditEvent(db, {
        actorType: "account",
        keyId: `smpp:${systemId}`,
        accountId: locked.accountId,
        action: "smppCredentials.lock",
        resourceId: systemId,
        requestId: null,
        status: null,
      });
  }
  return { credential: undefined, refusal: row ? "wrong_password" : "unknown_system_id" };
}

/** Lifts a lock of failed binds (the operator), and forgets the failures counted. */
export async function unlockSmppCredentialOf(db: Knex, accountId: string, systemId: string): Promise<SmppCredentialRow> {
  const row = await unlockSmppCredential(db, accountId, systemId);
  if (!row) throw notFound("SMPP credentials");
  return row;
}
