// People at the dashboard in a real browser against a real server and database (docs/USERS.md): an owner signs
// in with a password, invites a colleague (the link shown once), turns on two-factor sign-in with the code of an
// authenticator app (otpauth computes it, as the app would); the colleague accepts the invitation, signs in as a
// viewer and finds no form to change anything; the owner signs in again with the second factor and requires it
// of everyone, after which the colleague finds only "Your sign-in" open. axe audits every new page.
import { readFile } from "node:fs/promises";
import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openForm, openSettings, screenshot, unexpectedProblems, useBrowser } from "../helpers/browser.js";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const browser = useBrowser();

/** Signs in through the sign-in screen; `code` answers the second step when it is asked. */
async function signInAs(page: Page, email: string, password: string, code?: () => string): Promise<void> {
  await page.goto(`${server().baseUrl}/dashboard/`);
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  if (code) {
    await page.getByLabel("Authentication code").fill(code());
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
}

const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

describe.skipIf(!browserAvailable)("dashboard: people", { timeout: 120_000 }, () => {
  it("invite, accept, sign in with two-factor, a viewer sees no forms, sign out; required two-factor", async () => {
    const op = await server().operator();
    const a = await server().account();
    const ownerEmail = uniqueEmail("owner");
    await people(server, () => op).userOf(a, ownerEmail, "owner");
    const found: string[] = [];

    // The owner signs in with a password; the header names the person.
    const owner = await browser().newPage({ locale: "en-US" });
    await owner.goto(`${server().baseUrl}/dashboard/`);
    await owner.getByRole("heading", { name: "Sign in" }).waitFor();
    found.push(...(await audit(owner, "sign in")));
    await signInAs(owner, ownerEmail, PASSWORD);
    await owner.getByText(`${ownerEmail} (owner)`).waitFor();

    // Settings → Users: invite a colleague as a viewer; the link is shown once.
    await openSettings(owner, "Users");
    await owner.getByRole("heading", { name: "Settings → Users", level: 1 }).waitFor();
    await openForm(owner, "Invite someone");
    const colleague = uniqueEmail("colleague");
    await owner.getByLabel("Email address").fill(colleague);
    await owner.getByLabel("Role", { exact: true }).selectOption("viewer");
    await owner.getByRole("button", { name: "Invite", exact: true }).click();
    const link = await owner.getByLabel("Invitation link").inputValue();
    expect(link).toMatch(/\/dashboard\/accept#token=inv_/);
    await owner.locator(`tr[data-user="${colleague}"]`).getByText("invited").waitFor();
    found.push(...(await audit(owner, "users")));
    await screenshot(owner, "dashboard-users");

    // Your sign-in: two-factor sign-in turned on with the app's code; the recovery codes are shown once.
    await openSettings(owner, "Your sign-in");
    await owner.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    const secret = (await owner.locator("code.secret-value").textContent())!.trim();
    await owner.getByRole("img", { name: "QR code of the secret below" }).waitFor();
    found.push(...(await audit(owner, "two-factor setup")));
    const confirmedAt = Date.now();
    await owner.getByLabel("Code shown by the app").fill(codeOf(secret, confirmedAt));
    await owner.getByRole("button", { name: "Turn it on" }).click();
    const codes = owner.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    const shown = (await codes.allInnerTexts()).map((c) => c.trim());
    found.push(...(await audit(owner, "recovery codes")));
    // Copied, one a line, and downloaded as a text file that holds them all.
    await owner.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server().baseUrl });
    await owner.getByRole("button", { name: "Copy the codes" }).click();
    await owner.getByText("Recovery codes copied to the clipboard.", { exact: true }).waitFor();
    expect(await owner.evaluate<string>("navigator.clipboard.readText()")).toBe(shown.join("\n"));
    const [download] = await Promise.all([
      owner.waitForEvent("download"),
      owner.getByRole("button", { name: "Download the codes" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("recovery-codes.txt");
    const saved = await readFile(await download.path(), "utf8");
    expect(saved).toContain(ownerEmail);
    for (const code of shown) expect(saved).toContain(`\n${code}\n`);
    await owner.getByRole("button", { name: "I have stored them" }).click();
    await owner.getByRole("heading", { name: "Two-factor sign-in: on" }).waitFor();
    await owner.getByRole("table", { name: "Your sessions, newest first" }).getByText("(this one)").waitFor();
    found.push(...(await audit(owner, "your sign-in")));

    // The colleague accepts in a browser of their own: the password twice, then signs in.
    const viewer = await browser().newPage({ locale: "en-US" });
    // The link is made with PUBLIC_URL (here the default, localhost:PORT); this test's server listens elsewhere.
    await viewer.goto(`${server().baseUrl}/dashboard/accept${new URL(link).hash}`);
    await viewer.getByRole("heading", { name: "Accept the invitation" }).waitFor();
    found.push(...(await audit(viewer, "accept")));
    // Long enough for the field, but a commonly breached password: the server says so under the field.
    await viewer.getByLabel("New password").fill("123qweasdzxc");
    await viewer.getByLabel("Repeat the password").fill("123qweasdzxc");
    await viewer.getByRole("button", { name: "Set the password" }).click();
    await viewer.getByText("is a commonly breached password").first().waitFor();
    // The refusal is about what was typed: editing the field takes it away.
    await viewer.getByLabel("New password").fill(PASSWORD);
    await expect.poll(() => viewer.getByText("is a commonly breached password").count()).toBe(0);
    expect(await viewer.getByRole("alert").count()).toBe(0);
    await viewer.getByLabel("Repeat the password").fill(PASSWORD);
    await viewer.getByRole("button", { name: "Set the password" }).click();
    await viewer.getByRole("heading", { name: "Your password is set" }).waitFor();
    expect(viewer.url()).not.toContain("token=");
    await signInAs(viewer, colleague, PASSWORD);
    await viewer.getByText("Viewer: you can look at everything here but change nothing.").waitFor();
    // A viewer finds no form: no new message, no invitation, no new key, no role to change.
    await viewer.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages", exact: true }).click();
    await viewer.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    expect(await viewer.getByRole("button", { name: "New message" }).count()).toBe(0);
    await openSettings(viewer, "Users");
    await viewer.locator(`tr[data-user="${ownerEmail}"]`).waitFor();
    expect(await viewer.getByRole("button", { name: "Invite someone" }).count()).toBe(0);
    expect(await viewer.getByRole("combobox").count()).toBe(0);
    found.push(...(await audit(viewer, "users as a viewer")));
    await openSettings(viewer, "API keys");
    await viewer.getByRole("heading", { name: "Settings → API keys", level: 1 }).waitFor();
    expect(await viewer.getByRole("button", { name: "New key" }).count()).toBe(0);
    await viewer.getByRole("button", { name: "Sign out", exact: true }).click();
    await viewer.getByRole("heading", { name: "Sign in" }).waitFor();
    // Signed out on the server too: the old cookie opens nothing.
    expect((await viewer.request.get(`${server().baseUrl}/api/v1/session`)).status()).toBe(401);

    // The owner signs out and in again: now with the app's code (of the next step: each step's code works once).
    await owner.getByRole("button", { name: "Sign out", exact: true }).click();
    await owner.getByRole("heading", { name: "Sign in" }).waitFor();
    await owner.getByLabel("Email address").fill(ownerEmail);
    await owner.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await owner.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.getByLabel("Authentication code").waitFor();
    found.push(...(await audit(owner, "sign in, second step")));
    // The code already used to turn it on is refused, in words, and the field is cleared for the next one.
    await owner.getByLabel("Authentication code").fill(codeOf(secret, confirmedAt));
    await owner.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.getByRole("alert").getByText("That code is wrong or was used already. Wait for the next code", { exact: false }).waitFor();
    expect(await owner.getByRole("alert").innerText()).not.toContain("totp");
    await owner.getByLabel("Authentication code").fill(codeOf(secret, confirmedAt + 30_000));
    await owner.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.getByRole("button", { name: "Sign out", exact: true }).waitFor();

    // The owner requires two-factor sign-in: the colleague, without it, finds only Your sign-in open.
    await openSettings(owner, "Users");
    await owner.getByRole("button", { name: "Require two-factor sign-in for everyone" }).click();
    await owner.getByText("Required: everyone signs in with an authenticator app.", { exact: false }).waitFor();
    // The audit log names the person who made each change by email.
    await openSettings(owner, "Audit log");
    await owner.locator('tr[data-action="Users_setTwoFactorRequirement"]').getByText(ownerEmail, { exact: true }).waitFor();
    await owner.locator('tr[data-action="Users_invite"]').getByText(ownerEmail, { exact: true }).waitFor();
    found.push(...(await audit(owner, "audit log naming people")));
    await signInAs(viewer, colleague, PASSWORD);
    await viewer.getByRole("heading", { name: "Your sign-in", level: 1 }).waitFor();
    await viewer.getByText("This account requires two-factor sign-in: turn it on to use the dashboard.", { exact: false }).waitFor();
    expect(new URL(viewer.url()).pathname).toBe("/dashboard/settings/your-sign-in");
    expect(await viewer.getByRole("navigation", { name: "Main" }).count()).toBe(0);
    await viewer.goto(`${server().baseUrl}/dashboard/messages`);
    await viewer.getByRole("heading", { name: "Your sign-in", level: 1 }).waitFor();
    await screenshot(viewer, "dashboard-two-factor-required");

    expect(found).toEqual([]);
    // The 401s and 403s are the ones provoked on purpose: a short password, the session ended, the second step.
    expect(unexpectedProblems(owner.problems, 401)).toEqual([]);
    expect(unexpectedProblems(viewer.problems, 401, 403, 422)).toEqual([]);
    await owner.context().close();
    await viewer.context().close();
  });

  it("an operator user removes another from the operator's Users: confirmed, gone, their session ended; never themselves", async () => {
    const op = await server().operator();
    const api = people(server, () => op);
    const mine = uniqueEmail("ops-staff");
    const leaver = uniqueEmail("ops-leaver");
    await api.userOf(null, mine);
    await api.userOf(null, leaver);
    const leaving = await api.signIn(leaver);

    const page = await browser().newPage({ locale: "en-US" });
    await signInAs(page, mine, PASSWORD);
    await page.goto(`${server().baseUrl}/dashboard/operator/users`);
    await page.getByRole("heading", { name: "Operator users", level: 1 }).waitFor();
    await page.locator(`tr[data-user="${leaver}"]`).waitFor();
    // No button removes the signed-in operator user.
    expect(await page.getByRole("button", { name: `Remove ${mine}` }).count()).toBe(0);
    const found = await audit(page, "operator users");
    await page.getByRole("button", { name: `Remove ${leaver}` }).click();
    await page.getByRole("button", { name: "Remove user" }).click();
    await page.locator(`tr[data-user="${leaver}"]`).waitFor({ state: "detached" });
    await page.getByText(`${leaver} removed: their sessions have ended and the keys they made are revoked.`).waitFor();
    expect((await leaving.request("GET", "/api/v1/session")).status).toBe(401);
    // Requiring a second factor of operator users: refused while this one has none (it would lock them out).
    await page.getByText("Not required: each person chooses (Your sign-in).").waitFor();
    await page.getByRole("button", { name: "Require two-factor sign-in for everyone" }).click();
    await page.getByText("Turn on two-factor sign-in for yourself first").waitFor();
    expect(((await (await op.request("GET", "/api/v1/operator-users")).json()) as { twoFactorRequired: boolean }).twoFactorRequired).toBe(
      false,
    );
    expect(found).toEqual([]);
    expect(unexpectedProblems(page.problems, 409)).toEqual([]);
    await page.context().close();
  });

  it("an operator makes another operator user an auditor, who then sees every operator page and no form that changes anything", async () => {
    const op = await server().operator();
    const a = await server().account();
    const api = people(server, () => op);
    const lead = uniqueEmail("ops-lead");
    const reader = uniqueEmail("ops-reader");
    await api.userOf(null, lead);
    await api.userOf(null, reader);
    const page = await browser().newPage({ locale: "en-US" });
    await signInAs(page, lead, PASSWORD);
    await page.goto(`${server().baseUrl}/dashboard/operator/users`);
    await page.getByRole("combobox", { name: `Role of ${reader}` }).selectOption("auditor");
    await page.getByText(`${reader} is now auditor.`).waitFor();
    // No role menu for oneself.
    expect(await page.getByRole("combobox", { name: `Role of ${lead}` }).count()).toBe(0);
    await page.context().close();

    const auditor = await browser().newPage({ locale: "en-US" });
    await signInAs(auditor, reader, PASSWORD);
    await auditor.getByText("Auditor: you can look at everything in the operator console but change nothing.").waitFor();
    const found: string[] = [];
    const nav = auditor.getByRole("navigation", { name: "Main" });
    // Every operator page reads; none offers a change.
    for (const [link, heading] of [
      ["Accounts", "Accounts"],
      ["Connectors", "Connectors"],
      ["Routing", "Routing"],
      ["Price lists", "Price lists"],
      ["Users", "Operator users"],
    ] as const) {
      await nav.getByRole("link", { name: link, exact: true }).click();
      await auditor.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await auditor.waitForLoadState("networkidle");
      for (const label of [
        "New account",
        "Make a connector",
        "Create connector",
        "Save routing table",
        "New price list",
        "Invite someone",
        "Remove",
      ])
        expect(await auditor.getByRole("button", { name: label, exact: true }).count(), `${heading}: ${label}`).toBe(0);
    }
    found.push(...(await audit(auditor, "operator users as an auditor")));
    // An account's page: its limits shown in a form whose fields and button are disabled; nothing else to change.
    await auditor.goto(`${server().baseUrl}/dashboard/operator/accounts/${a.accountId}`);
    await auditor.getByRole("heading", { name: "Guards and limits", level: 2 }).waitFor();
    await auditor.getByText("Read only: your role changes nothing here.").first().waitFor();
    const enabledSubmits = await auditor.locator("form button[type=submit]:enabled").allInnerTexts();
    expect(enabledSubmits.filter((t) => t !== "Find the holder")).toEqual([]);
    for (const label of ["Invite a person", "Take back", "Credit"])
      expect(await auditor.getByRole("button", { name: label }).count(), label).toBe(0);
    found.push(...(await audit(auditor, "an account as an auditor")));
    expect(found).toEqual([]);
    expect(unexpectedProblems(auditor.problems)).toEqual([]);
    await auditor.context().close();
  });

  it("the operator invites an account's first owner from the account's page; the link makes them its owner", async () => {
    const op = await server().operator();
    const a = await server().account();
    const staff = uniqueEmail("ops-inviter");
    await people(server, () => op).userOf(null, staff);
    const page = await browser().newPage({ locale: "en-US" });
    await signInAs(page, staff, PASSWORD);
    await page.goto(`${server().baseUrl}/dashboard/operator/accounts/${a.accountId}`);
    await page.getByRole("heading", { name: "People", level: 2 }).waitFor();
    await page.getByRole("button", { name: "Invite a person" }).click();
    const first = uniqueEmail("first-owner");
    await page.getByLabel("Email address").fill(first);
    // The role is the account's first owner's unless chosen otherwise.
    expect(await page.getByLabel("Role", { exact: true }).inputValue()).toBe("owner");
    const found = await audit(page, "account people");
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    const link = await page.getByLabel("Invitation link").inputValue();
    expect(link).toMatch(/\/dashboard\/accept#token=inv_/);
    // The link works: the person sets a password and is the account's owner.
    const token = decodeURIComponent(new URL(link).hash.replace("#token=", ""));
    const accepted = await fetch(`${server().baseUrl}/api/v1/users/accept`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, password: PASSWORD }),
    });
    expect(accepted.status).toBe(201);
    expect(await accepted.json()).toMatchObject({ email: first, role: "owner", accountId: a.accountId });
    expect(found).toEqual([]);
    expect(unexpectedProblems(page.problems)).toEqual([]);
    await page.context().close();
  });

  it("changes one's password at Your sign-in: a wrong current one is said at its field; the other sessions end", async () => {
    const op = await server().operator();
    const a = await server().account();
    const email = uniqueEmail("changer");
    const api = people(server, () => op);
    await api.userOf(a, email, "developer");
    const elsewhere = await api.signIn(email);
    const NEW = "tangerine kettle orbit mosaic";

    const page = await browser().newPage({ locale: "en-US" });
    await signInAs(page, email, PASSWORD);
    await openSettings(page, "Your sign-in");
    // A third session, ended from the list: only the other two are left.
    const third = await api.signIn(email);
    await page.reload();
    await page.getByRole("button", { name: "End this session" }).nth(1).waitFor();
    // Each session names its browser and system, read from its User-Agent: this page's Chromium, and the
    // sessions signed in by the test's own requests (Node's fetch says "node": shown as it is).
    const browsers = await page
      .locator("tbody tr")
      .evaluateAll((rows) => rows.filter((r) => r.querySelector("button, .muted")).map((r) => r.children[2]?.textContent ?? ""));
    expect(
      browsers.find((b) => /^Chrome \d+ on Linux$/.test(b)),
      browsers.join(", "),
    ).toBeDefined();
    expect(browsers.filter((b) => b === "node")).toHaveLength(2);
    await page.getByRole("button", { name: "End this session" }).first().click();
    await page.getByRole("button", { name: "End this session" }).nth(1).waitFor({ state: "detached" });
    const alive = [(await third.request("GET", "/api/v1/session")).status, (await elsewhere.request("GET", "/api/v1/session")).status];
    expect(alive.sort()).toEqual([200, 401]);
    const form = page.getByRole("form", { name: "Password" });
    await form.getByLabel("Current password", { exact: true }).fill("not my password at all");
    await form.getByLabel("New password", { exact: true }).fill(NEW);
    await form.getByLabel("Repeat the new password").fill(NEW);
    await form.getByRole("button", { name: "Change the password" }).click();
    await form.getByText("is not your password").waitFor();

    await form.getByLabel("Current password", { exact: true }).fill(PASSWORD);
    await form.getByRole("button", { name: "Change the password" }).click();
    await page.getByText("Your password is changed. Your other sessions are signed out; this one stays signed in.").waitFor();
    expect(await audit(page, "password changed")).toEqual([]);
    expect([(await third.request("GET", "/api/v1/session")).status, (await elsewhere.request("GET", "/api/v1/session")).status]).toEqual([
      401, 401,
    ]);

    // Signed out, the new password signs in.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await signInAs(page, email, NEW);
    expect(unexpectedProblems(page.problems, 422)).toEqual([]);
    await page.context().close();
  });

  it("a forgotten password: asked for on the sign-in screen, set at the link's page, then signed in with", async () => {
    const op = await server().operator();
    const a = await server().account();
    const ownerEmail = uniqueEmail("resetter");
    const email = uniqueEmail("forgetful");
    const api = people(server, () => op);
    await api.userOf(a, ownerEmail, "owner");
    const { userId } = await api.userOf(a, email, "viewer");
    const NEW = "tangerine kettle orbit mosaic";

    // Asked for on the sign-in screen: the same answer for every address (this server sends no mail).
    const page = await browser().newPage({ locale: "en-US" });
    await page.goto(`${server().baseUrl}/dashboard/`);
    await page.getByText("Forgot your password?").click();
    await page.getByLabel("The address you sign in with").fill(email);
    await page.getByRole("button", { name: "Send me a link" }).click();
    await page.getByText("If this address is a user's, a link to set a new password is on its way.", { exact: false }).waitFor();
    expect(await audit(page, "forgot password")).toEqual([]);

    // An owner issues the link by hand; the person opens it and sets a new password.
    const owner = await api.signIn(ownerEmail);
    const issued = (await (await owner.request("POST", `/api/v1/users/${userId}/password-reset`)).json()) as { resetToken: string };
    await page.goto(`${server().baseUrl}/dashboard/reset#token=${issued.resetToken}`);
    await page.getByRole("heading", { name: "Set a new password" }).waitFor();
    expect(await audit(page, "reset password")).toEqual([]);
    await page.getByLabel("New password", { exact: true }).fill(NEW);
    await page.getByLabel("Repeat the password").fill(NEW);
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByRole("heading", { name: "Your new password is set" }).waitFor();
    expect(new URL(page.url()).hash).toBe("");
    await page.getByRole("link", { name: "Go to sign in" }).click();
    await signInAs(page, email, NEW);
    expect(unexpectedProblems(page.problems, 401)).toEqual([]);
    await page.context().close();
  });
});
