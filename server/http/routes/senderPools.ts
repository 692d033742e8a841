// The account's sender pools (routing/senderPools.ts; docs/ROUTING.md, "Sender pools").
import type { SenderPoolRow } from "../../routing/index.js";
import { changePool, createPool, getPool, listPools, removePool } from "../../routing/index.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

const toPool = (p: SenderPoolRow) => ({
  senderPoolId: p.id,
  name: p.name,
  senders: p.senders,
  sticky: p.sticky,
  maxMessagesPerSecondPerSender: p.maxPerSenderPerSecond,
  createdAt: iso(p.createdAt),
});

export const senderPoolHandlers: Pick<
  Handlers,
  "SenderPools_create" | "SenderPools_list" | "SenderPools_get" | "SenderPools_update" | "SenderPools_delete"
> = {
  async SenderPools_create({ db, account, body }) {
    return { status: 201, body: toPool(await createPool(db, account, body)) };
  },
  async SenderPools_list({ db, account }) {
    return { status: 200, body: { data: (await listPools(db, account.id)).map(toPool) } };
  },
  async SenderPools_get({ db, account, path }) {
    return { status: 200, body: toPool(await getPool(db, account.id, path.senderPoolId)) };
  },
  async SenderPools_update({ db, account, path, body }) {
    return { status: 200, body: toPool(await changePool(db, account, path.senderPoolId, body)) };
  },
  async SenderPools_delete({ db, account, path }) {
    await removePool(db, account.id, path.senderPoolId);
    return { status: 204 };
  },
};
