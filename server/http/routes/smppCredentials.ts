// The operator API's SMPP credentials of an account (docs/SMPP.md, "For client applications").
import {
  changeSmppCredential,
  createSmppCredential,
  listSmppCredentials,
  listSmppSessions,
  removeSmppCredential,
  unlockSmppCredentialOf,
  type SmppCredentialRow,
  type SmppSessionRow,
} from "../../operator/index.js";
import type { Db } from "../../db/knex.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";
import { requireAccount } from "./operatorAccounts.js";

const toSmppSession = (s: SmppSessionRow) => ({
  mode: s.mode,
  remoteAddress: s.remoteAddress,
  boundAt: iso(s.boundAt),
  seenAt: iso(s.seenAt),
});

const toSmppCredential = (c: SmppCredentialRow, sessions: SmppSessionRow[] = []) => ({
  systemId: c.systemId,
  accountId: c.accountId,
  maxBinds: c.maxBinds,
  submitsPerSecond: c.submitsPerSecond,
  window: c.window,
  allowedIps: c.allowedIps,
  messageIdFormat: c.messageIdFormat,
  test: c.test,
  createdAt: iso(c.createdAt),
  lockedUntil: c.lockedUntil && c.lockedUntil.getTime() > Date.now() ? iso(c.lockedUntil) : null,
  sessions: sessions.filter((s) => s.systemId === c.systemId).map(toSmppSession),
});

/** The account's credentials, each with its open sessions. */
async function credentialsWithSessions(db: Db, accountId: string) {
  const [credentials, sessions] = await Promise.all([listSmppCredentials(db, accountId), listSmppSessions(db, accountId)]);
  return { data: credentials.map((c) => toSmppCredential(c, sessions)) };
}

export const smppCredentialHandlers: Pick<
  Handlers,
  | "OperatorSmppCredentials_create"
  | "OperatorSmppCredentials_list"
  | "OperatorSmppCredentials_update"
  | "OperatorSmppCredentials_delete"
  | "OperatorSmppCredentials_unlock"
  | "SmppCredentials_list"
> = {
  async OperatorSmppCredentials_create({ db, path, body }) {
    await requireAccount(db, path.accountId);
    const created = await createSmppCredential(db, path.accountId, body);
    return { status: 201, body: { ...toSmppCredential(created), password: body.password } };
  },

  async OperatorSmppCredentials_list({ db, path }) {
    await requireAccount(db, path.accountId);
    return { status: 200, body: await credentialsWithSessions(db, path.accountId) };
  },

  async OperatorSmppCredentials_update({ db, path, body }) {
    const changed = await changeSmppCredential(db, path.accountId, path.systemId, body);
    return { status: 200, body: toSmppCredential(changed, await listSmppSessions(db, path.accountId)) };
  },

  async OperatorSmppCredentials_unlock({ db, path }) {
    const unlocked = await unlockSmppCredentialOf(db, path.accountId, path.systemId);
    return { status: 200, body: toSmppCredential(unlocked, await listSmppSessions(db, path.accountId)) };
  },

  async OperatorSmppCredentials_delete({ db, path }) {
    await removeSmppCredential(db, path.accountId, path.systemId);
    return { status: 204 };
  },

  async SmppCredentials_list({ db, account }) {
    return { status: 200, body: await credentialsWithSessions(db, account.id) };
  },
};
