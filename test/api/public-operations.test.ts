// The public operations (x-public: signing in, accepting an invitation) and the session cookie behind a TLS
// proxy (docs/USERS.md, docs/CONFIGURATION.md): each public call takes a token of its client address's bucket
// (UNAUTHENTICATED_RATE_PER_SECOND, UNAUTHENTICATED_BURST), and the cookie is `Secure` whenever PUBLIC_URL is
// https, or TRUST_PROXY is set and X-Forwarded-Proto says https.
import { beforeAll, describe, expect, it } from "vitest";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator, type TestServer } from "../helpers/server.js";

// Four calls at once, then one every 100 s: nothing refills the bucket within the test.
const limited = useTestServer({ unauthenticatedPerSecond: 0.01, unauthenticatedBurst: 4 });
const proxied = useTestServer({ trustProxy: true });
const https = useTestServer({ publicUrl: "https://sms.example.com" });

function personOn(server: () => TestServer) {
  let op: TestOperator;
  beforeAll(async () => {
    op = await server().operator();
  });
  return people(server, () => op);
}

describe("public operations (18)", () => {
  const { post } = personOn(limited);
  it("are rate-limited per client address, accepting and signing in alike", async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 2; i++) answers.push(await post("/api/v1/users/accept", { token: `inv_unknown${i}`, password: PASSWORD }));
    for (let i = 0; i < 2; i++) answers.push(await post("/api/v1/session", { email: uniqueEmail("nobody"), password: PASSWORD }));
    const refusedAccept = await post("/api/v1/users/accept", { token: "inv_unknown", password: PASSWORD });
    const refusedSignIn = await post("/api/v1/session", { email: uniqueEmail("nobody"), password: PASSWORD });
    expect(answers.map((r) => r.status)).toEqual([404, 404, 401, 401]);
    for (const refused of [refusedAccept, refusedSignIn]) {
      expect(refused.status).toBe(429);
      expect((await problemOf(refused)).code).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});

describe("the session cookie (19)", () => {
  const behindProxy = personOn(proxied);
  const atHttps = personOn(https);
  const cookieOf = (res: Response) => {
    expect(res.status).toBe(201);
    return res.headers.get("set-cookie")!;
  };

  it("is Secure with TRUST_PROXY when X-Forwarded-Proto says https, and not otherwise", async () => {
    const a = await proxied().account();
    const who = uniqueEmail("proxied");
    await behindProxy.userOf(a, who);
    const overTls = cookieOf(
      await behindProxy.post("/api/v1/session", { email: who, password: PASSWORD }, { "X-Forwarded-Proto": "https" }),
    );
    expect(overTls).toMatch(/; Secure/);
    const plain = cookieOf(await behindProxy.post("/api/v1/session", { email: who, password: PASSWORD }, { "X-Forwarded-Proto": "http" }));
    expect(plain).not.toMatch(/Secure/);
  });

  it("is Secure whenever PUBLIC_URL is https, even over a plain connection", async () => {
    const a = await https().account();
    const who = uniqueEmail("https");
    await atHttps.userOf(a, who);
    const res = await atHttps.post("/api/v1/session", { email: who, password: PASSWORD });
    expect(cookieOf(res)).toMatch(/^sms_session=ses_[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  });
});
