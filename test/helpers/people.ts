// People through the API, for the tests of users and sessions: invite and accept, sign in, and a "browser"
// that sends the session cookie (and its CSRF token) as a page of the dashboard would.
import { expect } from "vitest";
import type { TestAccount, TestOperator, TestServer } from "./server.js";

export const PASSWORD = "a long and private passphrase";

export interface SignedInPerson {
  cookie: string;
  csrf: string;
  /** The sign-in's answer: the session. */
  session: { userId: string; accountId: string | null; role: string; twoFactor: boolean; twoFactorRequired: boolean; csrfToken: string };
  /** A request with the session cookie (and the CSRF token unless `csrf: false`). */
  request: (method: string, path: string, body?: unknown, opts?: { csrf?: boolean }) => Promise<Response>;
}

/** A unique address for `who`. */
export const uniqueEmail = (who: string) => `${who}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

export function people(server: () => TestServer, operator: () => TestOperator) {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(server().baseUrl + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  /**
   * The operator invites `email` to the account (null: an operator user, `operator` unless `role` is `auditor`)
   * with `role`; accepted with PASSWORD.
   */
  async function userOf(a: TestAccount | null, email: string, role = "owner"): Promise<{ userId: string }> {
    const res = a
      ? await operator().request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email, role })
      : await operator().request("POST", "/api/v1/operator-users/invite", { email, ...(role === "auditor" ? { role } : {}) });
    expect(res.status, await res.clone().text()).toBe(201);
    const invitation = (await res.json()) as { inviteToken: string; userId: string };
    const accepted = await post("/api/v1/users/accept", { token: invitation.inviteToken, password: PASSWORD });
    expect(accepted.status, await accepted.clone().text()).toBe(201);
    return { userId: invitation.userId };
  }

  /** Signs in (with `extra`, e.g. a TOTP code); fails the test unless it is a 201. */
  async function signIn(email: string, password = PASSWORD, extra: Record<string, string> = {}): Promise<SignedInPerson> {
    const res = await post("/api/v1/session", { email, password, ...extra });
    expect(res.status, await res.clone().text()).toBe(201);
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const session = (await res.json()) as SignedInPerson["session"];
    return {
      cookie,
      csrf: session.csrfToken,
      session,
      request: (method, path, body, opts = {}) =>
        fetch(server().baseUrl + path, {
          method,
          headers: {
            Cookie: cookie,
            ...(opts.csrf === false ? {} : { "X-CSRF-Token": session.csrfToken }),
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
    };
  }

  return { post, userOf, signIn };
}
