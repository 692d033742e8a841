// Smart encoding replaces look-alikes only when that makes the whole text GSM-7, and the preview counts what is
// sent, in the encoding's units.
import { describe, expect, it } from "vitest";
import { preview, smartEncode, textToSend } from "../../common/smartEncoding.js";

describe("smart encoding", () => {
  it("replaces curly quotes, dashes, ellipsis and odd spaces when that makes the text GSM-7", () => {
    expect(smartEncode("It’s here — 50\u00A0% off… “today”")).toEqual({
      body: 'It\'s here - 50 % off... "today"',
      replacements: [
        { from: "’", to: "'", count: 1 },
        { from: "—", to: "-", count: 1 },
        { from: "\u00A0", to: " ", count: 1 },
        { from: "…", to: "...", count: 1 },
        { from: "“", to: '"', count: 1 },
        { from: "”", to: '"', count: 1 },
      ],
    });
  });

  it("never changes a text it cannot make GSM-7, nor one already GSM-7", () => {
    expect(smartEncode("It’s 🎉")).toBeUndefined();
    expect(smartEncode("Привет — мир")).toBeUndefined();
    expect(smartEncode("plain [text] €5")).toBeUndefined();
    expect(textToSend("It’s 🎉", true)).toBe("It’s 🎉");
    expect(textToSend("It’s", false)).toBe("It’s");
    expect(textToSend("It’s", true)).toBe("It's");
  });
});

describe("preview", () => {
  it("counts GSM-7 septets, an escaped character as two, and the room left", () => {
    expect(preview("hello", false)).toEqual({
      encoding: "GSM-7",
      segments: 1,
      characters: 5,
      charactersLeftInLastSegment: 155,
      smartEncoded: null,
    });
    expect(preview("€".repeat(80), false)).toMatchObject({
      encoding: "GSM-7",
      segments: 1,
      characters: 80,
      charactersLeftInLastSegment: 0,
    });
    expect(preview("€".repeat(81), false)).toMatchObject({ segments: 2, charactersLeftInLastSegment: 153 - (162 - 152) });
    expect(preview("x".repeat(161), false)).toMatchObject({ segments: 2, charactersLeftInLastSegment: 153 - 8 });
  });

  it("counts UCS-2 code units (an emoji is two) and code points as characters", () => {
    expect(preview("hi 🎉", false)).toEqual({
      encoding: "UCS-2",
      segments: 1,
      characters: 4,
      charactersLeftInLastSegment: 70 - 5,
      smartEncoded: null,
    });
    expect(preview("🎉".repeat(35), false)).toMatchObject({ segments: 1, characters: 35, charactersLeftInLastSegment: 0 });
    // 36 emoji are 72 units: 33 in the first part (66 of 67: a pair is never split), 3 in the second.
    expect(preview("🎉".repeat(36), false)).toMatchObject({ segments: 2, characters: 36, charactersLeftInLastSegment: 67 - 6 });
  });

  it("counts the smart-encoded text when asked for and it applies", () => {
    const p = preview("It’s on", true);
    expect(p).toMatchObject({ encoding: "GSM-7", segments: 1, characters: 7, smartEncoded: { body: "It's on" } });
    expect(preview("It’s on", false)).toMatchObject({ encoding: "UCS-2", smartEncoded: null });
    expect(preview("{{firstName}}, hi", false)).toMatchObject({ characters: 17, encoding: "GSM-7" });
  });
});
