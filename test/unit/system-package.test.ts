// The rule for tests that need a system package: present → run; absent → skip with a notice naming the Debian
// package; absent under CI=true → fail.
import { describe, expect, it, vi } from "vitest";
import { systemPackagePresent } from "../helpers/systemPackage.js";

const missing = { neededBy: "the tests of this file", file: "/nonexistent/usr/bin/chromium", debianPackage: "chromium" };

describe("system packages tests need", () => {
  it("are reported present when their file or command is there", () => {
    expect(systemPackagePresent({ neededBy: "x", file: process.execPath, debianPackage: "nodejs" }, {})).toBe(true);
    expect(systemPackagePresent({ neededBy: "x", command: process.execPath, debianPackage: "nodejs" }, {})).toBe(true);
  });

  it("when absent, skip with a loud notice naming the Debian package", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(systemPackagePresent(missing, {})).toBe(false);
      expect(
        systemPackagePresent(
          { ...missing, file: undefined, command: "no-such-command-pgbench", debianPackage: "postgresql-client" },
          { CI: "false" },
        ),
      ).toBe(false);
      const said = write.mock.calls.map((c) => String(c[0])).join("");
      expect(said).toContain(
        "SKIPPED: the tests of this file need /nonexistent/usr/bin/chromium, which is absent: apt-get install chromium",
      );
      expect(said).toContain("apt-get install postgresql-client");
    } finally {
      write.mockRestore();
    }
  });

  it("when absent under CI=true, fail", () => {
    expect(() => systemPackagePresent(missing, { CI: "true" })).toThrow(/apt-get install chromium.*CI=true/);
  });
});
