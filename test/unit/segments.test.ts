import { describe, expect, it } from "vitest";
import { segmentInfo } from "../../common/segments.js";

describe("segment counting", () => {
  it.each([
    ["a", "GSM-7", 1],
    ["a".repeat(160), "GSM-7", 1],
    ["a".repeat(161), "GSM-7", 2],
    ["a".repeat(306), "GSM-7", 2],
    ["a".repeat(307), "GSM-7", 3],
    ["€".repeat(80), "GSM-7", 1], // extension table: 2 septets each
    ["€".repeat(81), "GSM-7", 2],
    [`${"[".repeat(80)}a`, "GSM-7", 2],
    // 152 septets then an escape pair: the pair does not straddle the boundary, so it starts segment 2.
    [`${"a".repeat(152)}€${"a".repeat(152)}`, "GSM-7", 3],
    ["ä ö ü ñ à é ß Ø Δ Ω {}", "GSM-7", 1],
    ["ç", "UCS-2", 1], // lowercase c-cedilla is not in GSM 03.38 (only Ç is)
    [`${"é".repeat(70)}ç`, "UCS-2", 2],
    ["ж".repeat(70), "UCS-2", 1],
    ["ж".repeat(71), "UCS-2", 2],
    ["ж".repeat(134), "UCS-2", 2],
    ["ж".repeat(135), "UCS-2", 3],
    ["😀".repeat(35), "UCS-2", 1], // surrogate pairs: 2 units each
    ["😀".repeat(36), "UCS-2", 2],
    [`${"a".repeat(66)}😀`, "UCS-2", 1],
    [`${"a".repeat(66)}😀${"a".repeat(4)}`, "UCS-2", 2],
    [`${"a".repeat(66)}😀${"a".repeat(66)}`, "UCS-2", 3], // the pair never splits across segments
  ])("%#: %s → %s × %i", (text, encoding, segments) => {
    expect(segmentInfo(text)).toEqual({ encoding, segments });
  });
});
