// Ending one session (docs/USERS.md, "Signing in"): a person signs a lost or shared device out, and only that
// one; another person's session, or one that has ended, is 404; a key has no sessions to end.
import { beforeAll, describe, expect, it } from "vitest";
import { people, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { userOf, signIn } = people(server, () => op);

describe("ending one session", () => {
  it("ends only the session named, of the person asking; others' and ended ones are 404; a key gets 403", async () => {
    const a = await server().account();
    const email = uniqueEmail("devices");
    await userOf(a, email, "developer");
    const laptop = await signIn(email);
    const phone = await signIn(email);
    const tablet = await signIn(email);
    const sessions = (await (await laptop.request("GET", "/api/v1/sessions")).json()) as {
      data: { sessionId: string; current: boolean }[];
    };
    expect(sessions.data).toHaveLength(3);
    const phoneId = ((await (await phone.request("GET", "/api/v1/session")).json()) as { sessionId: string }).sessionId;

    expect((await laptop.request("DELETE", `/api/v1/sessions/${phoneId}`)).status).toBe(204);
    expect((await phone.request("GET", "/api/v1/session")).status).toBe(401);
    expect((await laptop.request("GET", "/api/v1/session")).status).toBe(200);
    expect((await tablet.request("GET", "/api/v1/session")).status).toBe(200);
    const again = await laptop.request("DELETE", `/api/v1/sessions/${phoneId}`);
    expect(again.status).toBe(404);
    expect((await problemOf(again)).code).toBe("not_found");

    // Another person's session is not theirs to end, and reads as unknown.
    const other = uniqueEmail("someone-else");
    await userOf(a, other, "owner");
    const theirs = await signIn(other);
    const theirId = ((await (await theirs.request("GET", "/api/v1/session")).json()) as { sessionId: string }).sessionId;
    expect((await laptop.request("DELETE", `/api/v1/sessions/${theirId}`)).status).toBe(404);
    expect((await theirs.request("GET", "/api/v1/session")).status).toBe(200);

    const keyed = await a.request("DELETE", `/api/v1/sessions/${theirId}`);
    expect(keyed.status).toBe(403);
    expect((await problemOf(keyed)).code).toBe("session_required");
  });
});
