// The dashboard names the fields a problem points at in words, never as JSON pointers (dashboard/src/fieldNames.ts).
import { describe, expect, it } from "vitest";
import { fieldName, plainDetail } from "../../dashboard/src/fieldNames.js";

describe("field names in the dashboard's problems", () => {
  it("read as words", () => {
    expect(fieldName("/body/to")).toBe("To");
    expect(fieldName("/body/scheduledAt")).toBe("Scheduled at");
    expect(fieldName("/body/messages/1/to")).toBe("Messages › item 2 › to");
    expect(fieldName("/query/since")).toBe("Since");
    expect(fieldName("/body")).toBe("The request");
  });

  it("replace the pointers of a detail", () => {
    expect(plainDetail("The request is invalid: /body/to must be a phone number with its +country prefix, e.g. +14155550123.")).toBe(
      "To must be a phone number with its +country prefix, e.g. +14155550123.",
    );
    expect(plainDetail("+449098765432 is a premium-rate number; not accepted.")).toBe(
      "+449098765432 is a premium-rate number; not accepted.",
    );
  });
});
