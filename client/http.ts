// The typed HTTP client for the SMS Platform API, generated from the same contract as the server (types in
// ../generated/api.ts; `npm run gen` regenerates them). Browser-safe: no Node built-ins, so the dashboard
// (dashboard/) bundles this module; ./index.ts re-exports it together with the Node-only receipt verifier.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "../generated/api.js";

export type { components, operations, paths };
export type SmsClient = Client<paths>;

export interface SmsClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** Base URL of the service, e.g. `https://sms.example.com`. */
  baseUrl: string;
  /** API key, `sms_<keyId>_<secret>`: how programs call. Leave it out for a person's session in a browser. */
  apiKey?: string;
  /**
   * A person's session instead of a key: a page on the service's own origin, whose browser sends the session
   * cookie by itself, passes the session's `csrfToken` (from `POST /api/v1/session`), sent as `X-CSRF-Token`.
   */
  csrfToken?: string;
}

/**
 * A client whose methods, bodies and responses are typed by the OpenAPI document. Array query parameters are
 * written comma-separated (`groupBy=day,country`), as every one of the document's says (`explode: false`).
 */
export function createSmsClient({ baseUrl, apiKey, csrfToken, headers, ...rest }: SmsClientOptions): SmsClient {
  return createClient<paths>({
    baseUrl,
    headers: {
      ...(apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` }),
      ...(csrfToken === undefined ? {} : { "X-CSRF-Token": csrfToken }),
      ...headers,
    },
    querySerializer: { array: { style: "form", explode: false } },
    ...rest,
  });
}
