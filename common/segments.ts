// SMS segment counting per GSM 03.38. A GSM-7 segment carries 160 septets, or 153 when the message is split
// (the concatenation header takes the rest); UCS-2 carries 70 UTF-16 units, or 67 when split. Characters of
// the extension table take two septets (escape + code) and never straddle a segment boundary; neither does
// a surrogate pair in UCS-2.

const GSM_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENSION = "\f^{}\\[~]|€";

const basic = new Set(GSM_BASIC);
const extension = new Set(GSM_EXTENSION);

export type Encoding = "GSM-7" | "UCS-2";

export interface SegmentInfo {
  encoding: Encoding;
  segments: number;
}

export function isGsm7(text: string): boolean {
  for (const ch of text) if (!basic.has(ch) && !extension.has(ch)) return false;
  return true;
}

/** Cost of each character in units of the encoding: septets for GSM-7, UTF-16 code units for UCS-2. */
function unitCosts(text: string, encoding: Encoding): number[] {
  const costs: number[] = [];
  for (const ch of text) costs.push(encoding === "GSM-7" ? (extension.has(ch) ? 2 : 1) : ch.length);
  return costs;
}

/** Splits characters into segments of at most `size` units without splitting a character. */
function splitBy(chars: string[], costs: number[], size: number): string[] {
  const parts: string[] = [""];
  let used = 0;
  chars.forEach((ch, i) => {
    if (used + costs[i]! > size) {
      parts.push("");
      used = 0;
    }
    parts[parts.length - 1] += ch;
    used += costs[i]!;
  });
  return parts;
}

/** The text as the segments it is sent in (one part when it fits a single SMS). */
export function splitSegments(text: string): { encoding: Encoding; parts: string[] } {
  const encoding: Encoding = isGsm7(text) ? "GSM-7" : "UCS-2";
  const [single, multi] = encoding === "GSM-7" ? [160, 153] : [70, 67];
  const chars = [...text];
  const costs = unitCosts(text, encoding);
  const total = costs.reduce((a, b) => a + b, 0);
  return { encoding, parts: total <= single ? [text] : splitBy(chars, costs, multi) };
}

export function segmentInfo(text: string): SegmentInfo {
  const { encoding, parts } = splitSegments(text);
  return { encoding, segments: parts.length };
}
