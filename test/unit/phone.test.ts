import { describe, expect, it } from "vitest";
import { requireSender, toE164 } from "../../server/domain/phone.js";
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
  });
});
