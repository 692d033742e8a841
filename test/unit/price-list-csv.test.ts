// The dashboard's money input and price-list CSV (dashboard/src/money.ts, dashboard/src/priceListCsv.ts):
// decimal amounts read into micro-units with integer arithmetic, and a price list read and written back.
import { describe, expect, it } from "vitest";
import { formatMicros, microsToDecimal, parseMicros } from "../../dashboard/src/money.js";
import { readPriceListCsv, writePriceListCsv } from "../../dashboard/src/priceListCsv.js";

describe("parseMicros", () => {
  it("reads decimal amounts exactly, up to six decimals", () => {
    expect(parseMicros("0.0075")).toBe(7500);
    expect(parseMicros("5")).toBe(5_000_000);
    expect(parseMicros(" -1.25 ")).toBe(-1_250_000);
    // 0.1 + 0.2 in floating point is not 0.3; read as text it is.
    expect(parseMicros("0.3")).toBe(300_000);
    expect(parseMicros("9007199254.740991")).toBe(Number.MAX_SAFE_INTEGER);
  });
  it("refuses what is not an amount", () => {
    for (const bad of ["", "1,5", "0.0000001", "1e3", "abc", "9007199254.740992", ".5", "+1"])
      expect(parseMicros(bad), bad).toBeUndefined();
  });
  it("round-trips with microsToDecimal", () => {
    for (const micros of [0, 1, 7500, 5_000_000, -12_500, 123_456_789]) expect(parseMicros(microsToDecimal(micros))).toBe(micros);
    expect(formatMicros(-12_500, "USD")).toBe("-0.0125 USD");
  });
});

describe("readPriceListCsv", () => {
  it("reads prefixes, countries and the default, with or without a header", () => {
    expect(readPriceListCsv("prefix,price\n+4477,0.032\n1415,0.005\ngb,0.04\ndefault,0.05\n")).toEqual({
      entries: [
        { prefix: "+4477", pricePerSegment: 32_000 },
        { prefix: "+1415", pricePerSegment: 5_000 },
        { country: "GB", pricePerSegment: 40_000 },
      ],
      default: 50_000,
      errors: [],
    });
    expect(readPriceListCsv("+1,0.01").entries).toEqual([{ prefix: "+1", pricePerSegment: 10_000 }]);
  });
  it("reports every bad line by its number", () => {
    const { errors } = readPriceListCsv("prefix,price\n+44,abc\nUSA,0.01\n+1,0.01\n+1,0.02\nGB,1,2\n+33,-1\n");
    expect(errors).toEqual([
      "line 2: “abc” is not a price (a decimal amount such as 0.0075, at most six decimals)",
      "line 3: “USA” is neither a number prefix (+4477) nor a country code (GB)",
      "line 5: +1 is listed twice",
      "line 6: two columns expected (prefix or country, price)",
      "line 7: “-1” is not a price (a decimal amount such as 0.0075, at most six decimals)",
    ]);
  });
  it("writes back what it reads", () => {
    const text = "prefix,price\n+4477,0.032\n+1,0.01\nUS,0.0075\ndefault,0.05\n";
    const read = readPriceListCsv(text);
    expect(writePriceListCsv(read.entries, read.default, microsToDecimal)).toBe(text);
  });
});
