import { readActiveApiKey } from "../../db/apiKeys.js";
import { HttpError } from "../problem.js";
import type { Handlers } from "../types.js";

export const keyHandlers: Pick<Handlers, "Key_get"> = {
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
        scope: row.kind === "account" ? "full" : null,
        test: false,
        accountId: row.accountId,
        expiresAt: null,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      },
    };
  },
};
