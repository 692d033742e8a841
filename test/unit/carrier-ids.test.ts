// The keys a carrier's receipt id may match (server/domain/carrierIds.ts).
import { describe, expect, it } from "vitest";
import { carrierIdCandidates, carrierIdKey } from "../../server/domain/carrierIds.js";

describe("carrier ids", () => {
  it("keys an id in lower case without leading zeros", () => {
    expect(carrierIdKey("00A1F3")).toBe("a1f3");
    expect(carrierIdKey("000")).toBe("0");
    expect(carrierIdKey("smsc-1")).toBe("smsc-1");
  });

  it("offers a decimal id's hexadecimal form and a hexadecimal id's decimal form, of any size", () => {
    expect(carrierIdCandidates("41459")).toEqual(["41459", "a1f3", "267353"]);
    expect(carrierIdCandidates("00A1F3")).toEqual(["a1f3", "41459"]);
    expect(carrierIdCandidates("18446744073709551617")).toContain("10000000000000001");
    expect(carrierIdCandidates("msg-7")).toEqual(["msg-7"]);
  });
});
