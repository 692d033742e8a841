// The "Delivery receipts" section of the API reference at /docs: Redoc renders the document /openapi.json, in
// which the section is a tag without operations (x-traitTag). Its figures are checked against the code that
// delivers receipts, so the page cannot drift from what the server does.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { SECRET_ROTATION_GRACE_MS } from "../../server/http/routes/webhooks.js";
import { MAX_ATTEMPTS, retryDelayMs } from "../../server/jobs/handlers/deliverReceipt.js";
import { receiptHeaders } from "../../server/webhooks/signing.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

interface Tag {
  name: string;
  description?: string;
  "x-traitTag"?: boolean;
}

async function receiptsSection(): Promise<{ tag: Tag; doc: { tags: Tag[]; components: { schemas: Record<string, unknown> } } }> {
  const doc = (await (await fetch(`${server().baseUrl}/openapi.json`)).json()) as {
    tags: Tag[];
    components: { schemas: Record<string, unknown> };
  };
  const tag = doc.tags.find((t) => t.name === "Delivery receipts");
  expect(tag, "a Delivery receipts tag").toBeDefined();
  return { tag: tag!, doc };
}

describe("API reference: delivery receipts", () => {
  it("is a section of its own in the document /docs renders, with the receipt schema", async () => {
    const init = await (await fetch(`${server().baseUrl}/docs/assets/init.js`)).text();
    expect(init).toContain('"/openapi.json"');
    const { tag, doc } = await receiptsSection();
    expect(tag["x-traitTag"]).toBe(true);
    const headings = [...tag.description!.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      "Payload",
      "Signatures",
      "Retries",
      "Ordering",
      "Batches",
      "Duplicates",
      "Verifying with the client package",
    ]);
    expect(tag.description).toContain('<SchemaDefinition schemaRef="#/components/schemas/DeliveryReceipt" />');
    expect(doc.components.schemas.DeliveryReceipt).toBeDefined();
    // Every tag of the side menu introduces its section.
    for (const t of doc.tags) expect(t.description, t.name).toBeTruthy();
  });

  it("states the server's retry schedule, timeout, rotation grace and headers", async () => {
    const { tag } = await receiptsSection();
    const text = tag.description!;
    const prose = text.replace(/\s+/g, " ");
    const config = loadConfig({});
    expect(prose).toContain(`retried up to ${MAX_ATTEMPTS - 1} times (${MAX_ATTEMPTS} attempts in all)`);
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const s = (f: number) => retryDelayMs(n, config.webhookRetryBaseMs, () => f) / 1000;
      // Jitter bounds: random() = 0 gives -10 %, random() → 1 gives +10 %.
      expect(text).toContain(`| ${n + 1} (retry ${n}) | ${s(0.5)} s (${s(0)} to ${s(1)} s) after attempt ${n} |`);
    }
    expect(prose).toContain(`within ${config.webhookTimeoutMs / 1000} seconds`);
    expect(prose).toContain(`For ${SECRET_ROTATION_GRACE_MS / 3_600_000} hours after a rotation`);
    const signed = Object.keys(receiptHeaders("d", "{}", { secret: "whsec_AAAA", previousSecret: "whsec_BBBB" }));
    for (const name of signed.filter((h) => h.includes("webhook"))) expect(text.toLowerCase()).toContain(`| \`${name}\` |`);
    // The Express sample is checked against client/examples/receiver.ts by test/client/examples.test.ts.
    expect(text).toContain("verifyReceipt(req.body, req.headers, secret)");
  });
});
