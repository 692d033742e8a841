// DATABASE_URL with several hosts in libpq's form (db/hosts.ts): what each part becomes.
import { describe, expect, it } from "vitest";
import { choosesHost, DatabaseUrlError, parseDatabaseUrl } from "../../server/db/hosts.js";

describe("parseDatabaseUrl", () => {
  it("reads the URL pg_autoctl prints for a formation: each host, the rest shared", () => {
    const t = parseDatabaseUrl("postgres://app:s%40cret@node1:55431,node2:55432/sms?target_session_attrs=read-write&sslmode=disable");
    expect(t.hosts).toEqual([
      { host: "node1", port: 55431 },
      { host: "node2", port: 55432 },
    ]);
    expect(t.attrs).toBe("read-write");
    expect(t.base).toMatchObject({ user: "app", password: "s@cret", database: "sms" });
    expect(t.base).not.toHaveProperty("target_session_attrs");
    expect(t.base).not.toHaveProperty("host");
    expect(choosesHost(t)).toBe(true);
  });

  it("takes a default port, IPv6 in brackets, and postgresql://", () => {
    const t = parseDatabaseUrl("postgresql://u@[::1]:6000,db2/x");
    expect(t.hosts).toEqual([
      { host: "::1", port: 6000 },
      { host: "db2", port: 5432 },
    ]);
    expect(t.attrs).toBe("any");
  });

  it("leaves a plain one-host URL to connect as before", () => {
    const t = parseDatabaseUrl("postgres://u:p@127.0.0.1:5433/app");
    expect(t.hosts).toEqual([{ host: "127.0.0.1", port: 5433 }]);
    expect(choosesHost(t)).toBe(false);
    expect(choosesHost(parseDatabaseUrl("postgres://u@h/app?target_session_attrs=primary"))).toBe(true);
  });

  it("refuses an unknown target_session_attrs and an empty host, without the password in the message", () => {
    expect(() => parseDatabaseUrl("postgres://u@a,b/x?target_session_attrs=writable")).toThrow(DatabaseUrlError);
    const error = (() => {
      try {
        parseDatabaseUrl("postgres://u:hunter2@a,,b/x");
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(DatabaseUrlError);
    expect(error!.message).not.toContain("hunter2");
  });
});
