import { listAccountKeys, readActiveApiKey, type ApiKeyRow } from "../../operator/index.js";
import { fetchPage } from "../../domain/cursor.js";
import { createAccountKey, narrowerScope, revokeAccountKey, ROLE_SCOPE } from "../../operator/index.js";
import { HttpError } from "../problem.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

export const KEY_ID = /^[0-9A-Za-z]{12}$/;

const isoOrNull = (d: Date | null) => (d ? iso(d) : null);

export const toKeySummary = (k: ApiKeyRow) => ({
  keyId: k.keyId,
  name: k.name,
  scope: k.scope!,
  test: k.test,
  expiresAt: isoOrNull(k.expiresAt),
  createdAt: iso(k.createdAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
  createdBy: createdByOf(k),
});

/** Who made the key with a session (inherited by the keys it made), or null. */
const createdByOf = (k: ApiKeyRow) =>
  k.createdByUserId && k.createdByEmail ? { userId: k.createdByUserId, email: k.createdByEmail } : null;

export const toCreatedKey = (k: ApiKeyRow & { key: string }) => ({
  keyId: k.keyId,
  key: k.key,
  name: k.name,
  scope: k.scope!,
  expiresAt: isoOrNull(k.expiresAt),
  test: k.test,
  createdAt: iso(k.createdAt),
  createdBy: createdByOf(k),
});

export const keyHandlers: Pick<Handlers, "Key_get" | "Keys_create" | "Keys_list" | "Keys_revoke"> = {
  async Key_get({ db, key, keyUsage }) {
    await keyUsage.flush(); // this request's use included
    const row = await readActiveApiKey(db, key.id);
    // Revoked since it was checked, a moment ago.
    if (!row)
      throw new HttpError("unauthorized", "The API key is unknown or revoked.", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
    return {
      status: 200,
      body: {
        keyId: row.keyId,
        kind: row.kind,
        name: row.name,
        scope: row.scope,
        test: row.test,
        accountId: row.accountId,
        expiresAt: isoOrNull(row.expiresAt),
        createdAt: iso(row.createdAt),
        lastUsedAt: isoOrNull(row.lastUsedAt),
        createdBy: createdByOf(row),
      },
    };
  },

  async Keys_create({ db, account, key, session, body, now }) {
    // Made with a session: its person is the maker. Made by a key: that key's maker, if any, and never more
    // than that maker's role allows now.
    const maker = key.maker;
    const created = await createAccountKey(db, account.id, body, {
      by: {
        scope: maker ? narrowerScope(key.scope!, ROLE_SCOPE[maker.role]) : key.scope!,
        test: key.test,
        expiresAt: key.expiresAt,
        createdBy: session ? { userId: session.userId, email: session.email } : maker ? { userId: maker.userId, email: maker.email } : null,
      },
      now: now(),
    });
    return { status: 201, body: toCreatedKey(created) };
  },

  async Keys_list({ db, account, query, keyUsage }) {
    await keyUsage.flush();
    const { items, nextCursor } = await fetchPage(query, (w) => listAccountKeys(db, account.id, w), KEY_ID);
    return { status: 200, body: { data: items.map(toKeySummary), nextCursor } };
  },

  async Keys_revoke({ db, account, key, path }) {
    await revokeAccountKey(db, account.id, path.keyId, key.id);
    return { status: 204 };
  },
};
