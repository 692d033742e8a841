import { describe, expect, it } from "vitest";
import { fromSmppAddress, requirePhone, requireSender, toE164 } from "../../server/domain/phone.js";
import { DomainError } from "../../server/domain/errors.js";

describe("phone numbers", () => {
  it.each([
    ["+14155550123", "+14155550123"],
    ["+1 (415) 555-0123", "+14155550123"],
    ["+44 7911 123456", "+447911123456"],
    ["+49.151.1234.5678", "+4915112345678"],
  ])("normalises %s to %s", (input, e164) => expect(toE164(input)).toBe(e164));

  it.each(["4155550123", "0044 7911 123456", "+1415555012", "+999123456789", "+44 7911 12345a", "", "+"])("rejects %j", (input) => {
    expect(toE164(input)).toBeUndefined();
  });

  it("accepts alphanumeric senders of 1 to 11 characters and E.164 senders", () => {
    expect(requireSender("ACME", "/from")).toBe("ACME");
    expect(requireSender("A1B2C3D4E5F", "/from")).toBe("A1B2C3D4E5F");
    expect(requireSender("+1 415 555 0123", "/from")).toBe("+14155550123");
    for (const bad of ["ABCDEFGHIJKL", "AC ME", "AC-ME", "", "4155550123456789"]) {
      expect(() => requireSender(bad, "/from"), bad).toThrow(DomainError);
    }
    // Digits alone are a number without its +: another account's number must not pass as a sender ID.
    for (const digits of ["14155550111", "4155550111", "12345", "1 415 555 0111"]) {
      expect(() => requireSender(digits, "/from"), digits).toThrow(/without its \+country prefix/);
    }
    expect(requireSender("7ELEVEN", "/from")).toBe("7ELEVEN");
  });
});

describe("SMPP addresses read with their type of number (TON)", () => {
  it.each([
    // [address, TON, SMPP_DEFAULT_COUNTRY, E.164 or as given]
    ["4155559400", 2, "US", "+14155559400"],
    ["07911123457", 2, "GB", "+447911123457"],
    ["07911123457", 0, "GB", "+447911123457"],
    ["0014155559400", 0, undefined, "+14155559400"],
    ["00447911123457", 1, undefined, "+447911123457"],
    ["447911123457", 1, undefined, "+447911123457"],
    ["447911123457", 0, "US", "+447911123457"],
    ["+14155559400", 0, undefined, "+14155559400"],
    ["4155559400", 2, undefined, "4155559400"], // national without a default country: kept as it came
    ["011447911123457", 0, undefined, "+447911123457"], // 011: North America's exit code
    ["011447911123457", 0, "US", "+447911123457"],
    ["01134960000", 0, "GB", "+441134960000"], // in GB, 0113 is Leeds
    ["0114", 0, undefined, "0114"],
    ["ACME", 5, "GB", "ACME"],
    ["", 0, "GB", ""],
  ] as const)("%s (TON %d, default %s) → %s", (raw, ton, country, expected) => {
    expect(fromSmppAddress(raw, ton, country)).toBe(expected);
  });

  it("says what is wrong with a number in words that fit it: a wrong number with its prefix is not told to add one", () => {
    expect(() => requirePhone("+447700900123", "/to")).toThrow(/is not a valid phone number of its country/);
    expect(() => requirePhone("+447700900123", "/to")).not.toThrow(/with its \+country prefix, e\.g\./);
    expect(() => requirePhone("4155550123", "/to")).toThrow(/must be a phone number with its \+country prefix/);
  });
});
