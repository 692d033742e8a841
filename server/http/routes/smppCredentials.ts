// The operator API's SMPP credentials of an account (docs/SMPP.md, "For client applications").
import {
  changeSmppCredential,
  createSmppCredential,
  listSmppCredentials,
  removeSmppCredential,
  type SmppCredentialRow,
} from "../../operator/index.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";
import { requireAccount } from "./operatorAccounts.js";

const toSmppCredential = (c: SmppCredentialRow) => ({
  systemId: c.systemId,
  accountId: c.accountId,
  maxBinds: c.maxBinds,
  submitsPerSecond: c.submitsPerSecond,
  window: c.window,
  allowedIps: c.allowedIps,
  messageIdFormat: c.messageIdFormat,
  test: c.test,
  createdAt: iso(c.createdAt),
});

export const smppCredentialHandlers: Pick<
  Handlers,
  "OperatorSmppCredentials_create" | "OperatorSmppCredentials_list" | "OperatorSmppCredentials_update" | "OperatorSmppCredentials_delete"
> = {
  async OperatorSmppCredentials_create({ db, path, body }) {
    await requireAccount(db, path.accountId);
    const created = await createSmppCredential(db, path.accountId, body);
    return { status: 201, body: { ...toSmppCredential(created), password: body.password } };
  },

  async OperatorSmppCredentials_list({ db, path }) {
    await requireAccount(db, path.accountId);
    return { status: 200, body: { data: (await listSmppCredentials(db, path.accountId)).map(toSmppCredential) } };
  },

  async OperatorSmppCredentials_update({ db, path, body }) {
    return { status: 200, body: toSmppCredential(await changeSmppCredential(db, path.accountId, path.systemId, body)) };
  },

  async OperatorSmppCredentials_delete({ db, path }) {
    await removeSmppCredential(db, path.accountId, path.systemId);
    return { status: 204 };
  },
};
