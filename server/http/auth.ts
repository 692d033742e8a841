import type { RequestHandler } from "express";
import type { Account } from "../db/accounts.js";
import { findActiveApiKey } from "../db/apiKeys.js";
import type { Db } from "../db/knex.js";
import { hashSecret, parseApiKey, secretMatches } from "../domain/apiKeys.js";
import { ApiError } from "../domain/errors.js";

declare module "express-serve-static-core" {
  interface Request {
    account?: Account;
    apiKeyId?: string;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
// Compared against when the key id is unknown, so a miss costs the same as a wrong secret.
const DECOY_HASH = hashSecret("decoy");

const unauthorized = (detail: string) =>
  new ApiError(401, "unauthorized", detail, undefined, { "WWW-Authenticate": 'Bearer realm="api"' });

/** Authenticates `Authorization: Bearer sms_<keyId>_<secret>` and puts the key's account on the request. */
export function requireApiKey(db: Db): RequestHandler {
  return async (req, _res, next) => {
    try {
      const header = req.headers.authorization;
      if (!header) throw unauthorized("Send an API key in the header Authorization: Bearer <API_KEY>.");
      const token = BEARER.exec(header)?.[1];
      const parsed = token ? parseApiKey(token) : undefined;
      if (!parsed) throw unauthorized("The Authorization header must be `Bearer sms_<keyId>_<secret>`.");
      const key = await findActiveApiKey(db, parsed.keyId);
      const valid = secretMatches(parsed.secret, key?.secretHash ?? DECOY_HASH) && key !== undefined;
      if (!valid) throw unauthorized("The API key is unknown or revoked.");
      req.account = { id: key.accountId, name: key.accountName };
      req.apiKeyId = key.keyId;
      next();
    } catch (error) {
      next(error);
    }
  };
}
