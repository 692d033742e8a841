// A person's session is charged to its account's request rate limit exactly as the account's keys are
// (docs/USERS.md, "Signing in"): the dashboard cannot be used to go around the limit.
import { beforeAll, describe, expect, it } from "vitest";
import { people, uniqueEmail } from "../helpers/people.js";
import { useTestServer, type TestOperator } from "../helpers/server.js";

// A tight request limit: 5 at once, then one every 20 s, so nothing refills the bucket within the test.
const server = useTestServer({ rateLimitPerSecond: 0.05, rateLimitBurst: 5 });
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { userOf, signIn } = people(server, () => op);

describe("a session's requests", () => {
  it("take tokens from the account's request bucket, shared with its keys, and are refused with 429 when it is empty", async () => {
    const a = await server().account();
    const who = uniqueEmail("limited");
    await userOf(a, who, "viewer");
    const person = await signIn(who);
    const answers: Response[] = [];
    for (let i = 0; i < 4; i++) answers.push(await person.request("GET", "/api/v1/messages"));
    // The account's key draws from the same bucket.
    for (let i = 0; i < 4; i++) answers.push(await a.request("GET", "/api/v1/messages"));
    answers.push(await person.request("GET", "/api/v1/messages"));
    const statuses = answers.map((r) => r.status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.at(-1)).toBe(429);
    const refused = answers.at(-1)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answers[0]!.headers.get("ratelimit-limit")).toBe("5");
  });
});
