import { describe, expect, it } from "vitest";
import { AddressLimiter, clientBucket } from "../../server/http/addressLimiter.js";

describe("AddressLimiter", () => {
  it("refuses an address past its burst, says when to retry, and refills at the rate", () => {
    let now = 1_000_000;
    const limiter = new AddressLimiter(1, 3, 100, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterSeconds("a")).toBe(0);
      limiter.take("a");
    }
    expect(limiter.retryAfterSeconds("a")).toBe(1);
    expect(limiter.retryAfterSeconds("b")).toBe(0);
    now += 1000;
    expect(limiter.retryAfterSeconds("a")).toBe(0);
  });

  it("remembers at most maxAddresses, forgetting the least recently seen (which starts full again)", () => {
    const now = 1_000_000;
    const limiter = new AddressLimiter(1, 1, 2, () => now);
    limiter.take("a");
    limiter.take("b");
    expect(limiter.retryAfterSeconds("a")).toBe(1);
    limiter.take("a"); // a is now the most recently seen
    limiter.take("c"); // b is forgotten
    expect(limiter.retryAfterSeconds("b")).toBe(0);
    expect(limiter.retryAfterSeconds("a")).toBe(1);
    expect(limiter.retryAfterSeconds("c")).toBe(1);
  });
});

describe("clientBucket", () => {
  it("keeps IPv4 (also IPv4-mapped) and groups IPv6 by its /64", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:db8::5")).toBe("2001:db8:0:0::/64");
    expect(clientBucket("::1")).toBe("0:0:0:0::/64");
    expect(clientBucket("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});
