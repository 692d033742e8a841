// The dashboard's notice of a disabled webhook (Settings → Webhooks): the reason, and Enable, which enables it.
// The webhook is put in the state the dispatcher leaves a disabled one in (test/webhooks/fairness.test.ts shows
// the dispatcher getting there).
import { describe, expect, it } from "vitest";
import { browserAvailable, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: a disabled webhook", { timeout: 60_000 }, () => {
  it("shows why it was disabled and enables it on request", async () => {
    const { baseUrl, account, db } = server();
    const { key, client } = await account();
    const { data } = await client.POST("/api/v1/webhooks", { body: { name: "dead receiver", url: "http://127.0.0.1:9/dlr" } });
    const reason = "100 consecutive failed delivery attempts since 2026-11-18T10:00:00Z";
    await db("webhooks")
      .where({ id: data!.webhookId })
      .update({ disabled_at: db.fn.now(), disabled_reason: reason, consecutive_failures: 100 });

    const page = await browser().newPage();
    await signIn(page, baseUrl, key, "/dashboard/settings/webhooks");
    await page.getByText("One webhook is disabled after failing for a long time").waitFor();
    const notice = page.locator('[data-webhook="dead receiver"]').getByTestId("webhook-disabled");
    await notice.getByText(reason).waitFor();
    await screenshot(page, "dashboard-webhook-disabled");

    await notice.getByRole("button", { name: "Enable webhook dead receiver" }).click();
    await notice.waitFor({ state: "detached" });
    const { data: after } = await client.GET("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId: data!.webhookId } } });
    expect(after).toMatchObject({ disabledAt: null, disabledReason: null });
    expect(await page.getByText("disabled after failing for a long time").count()).toBe(0);
  });
});
