// The client as a package a partner installs (client/package.json): `npm pack` builds it (JavaScript and
// declarations, with the contract's types inside), a scratch project installs the tarball, a program using it
// type-checks there (and a wrong path does not: the types are live), and Node imports it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../helpers/process.js";

const root = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "client-package-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PROGRAM = `import { createSmsClient, verifyReceipt } from "@sms-platform/client";

const client = createSmsClient({ baseUrl: "https://sms.example.com", apiKey: "sms_x" });
export async function send(): Promise<string | undefined> {
  const { data } = await client.POST("/api/v1/messages", { body: { to: "+14155550123", from: "ACME", body: "Hello" } });
  return data?.messageId;
}
export const verify = verifyReceipt;
`;

describe("the client package", { timeout: 180_000 }, () => {
  it("packs, installs into a scratch project, type-checks there and imports in Node", async () => {
    const packed = await run("npm", ["pack", "--silent", "--pack-destination", scratch], {}, { cwd: join(root, "client") });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = readdirSync(scratch).find((f) => f.endsWith(".tgz"))!;
    expect(tarball).toMatch(/^sms-platform-client-\d+\.\d+\.\d+\.tgz$/);

    const project = join(scratch, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "partner", private: true, type: "module" }));
    const installed = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-exact", join(scratch, tarball)],
      {},
      { cwd: project },
    );
    expect(installed.code, installed.stderr).toBe(0);

    writeFileSync(join(project, "send.ts"), PROGRAM);
    writeFileSync(join(project, "wrong.ts"), PROGRAM.replace('"/api/v1/messages"', '"/api/v1/mesages"'));
    const tsc = (file: string) =>
      run(
        "node",
        [
          join(root, "node_modules/typescript/bin/tsc"),
          "--noEmit",
          "--strict",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--target",
          "es2022",
          "--skipLibCheck",
          "--types",
          "node",
          "--typeRoots",
          join(root, "node_modules/@types"),
          file,
        ],
        {},
        { cwd: project },
      );
    const good = await tsc("send.ts");
    expect(good.code, good.stdout).toBe(0);
    const wrong = await tsc("wrong.ts");
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toContain("/api/v1/mesages");

    const imported = await run(
      "node",
      [
        "--input-type=module",
        "-e",
        'const m = await import("@sms-platform/client"); console.log(typeof m.createSmsClient, typeof m.verifyReceipt)',
      ],
      {},
      { cwd: project },
    );
    expect(imported.stdout.trim()).toBe("function function");
  });
});
