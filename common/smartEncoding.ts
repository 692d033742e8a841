// Smart encoding and the preview's counts, shared by the server (what is sent and counted) and the dashboard
// (the live count under every message field). A character with a GSM-7 look-alike is replaced only when that
// makes the whole text GSM-7: one curly quote must not turn a 1-segment message into UCS-2, but a text that
// stays UCS-2 anyway (an emoji, Cyrillic) is sent exactly as written.
import { isGsm7, splitSegments, type Encoding } from "./segments.js";

/** Characters with a GSM-7 look-alike (the replacements Twilio's and Telnyx's smart encoding make). */
const LOOK_ALIKES: Record<string, string> = {
  "\u2018": "'", // ‘
  "\u2019": "'", // ’
  "\u201A": "'", // ‚
  "\u201B": "'", // ‛
  "\u2032": "'", // ′
  "\u02BC": "'", // ʼ
  "\u02C8": "'", // ˈ
  "\u201C": '"', // “
  "\u201D": '"', // ”
  "\u201E": '"', // „
  "\u201F": '"', // ‟
  "\u2033": '"', // ″
  "\u00AB": '"', // «
  "\u00BB": '"', // »
  "\u2010": "-", // ‐
  "\u2011": "-", // ‑
  "\u2012": "-", // ‒
  "\u2013": "-", // –
  "\u2014": "-", // —
  "\u2015": "-", // ―
  "\u2212": "-", // −
  "\u2026": "...", // …
  "\u00A0": " ", // no-break space
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " ",
  "\u200B": "", // zero-width space
  "\u2060": "", // word joiner
  "\uFEFF": "", // zero-width no-break space
  "\u2022": "-", // •
  "\u00B7": "-", // ·
  "\u02C6": "^", // ˆ
  "\u02DC": "~", // ˜
  "\u2039": "<", // ‹
  "\u203A": ">", // ›
  "\u00D7": "x", // ×
  "\u00F7": "/", // ÷
};

export interface Replacement {
  from: string;
  to: string;
  count: number;
}

export interface SmartEncoded {
  body: string;
  replacements: Replacement[];
}

/** The text with its look-alikes replaced, when that makes it GSM-7 and changes it; else undefined. */
export function smartEncode(text: string): SmartEncoded | undefined {
  if (isGsm7(text)) return undefined;
  const counts = new Map<string, number>();
  let out = "";
  for (const ch of text) {
    const to = LOOK_ALIKES[ch];
    if (to === undefined) out += ch;
    else {
      out += to;
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
  }
  if (counts.size === 0 || !isGsm7(out)) return undefined;
  return { body: out, replacements: [...counts].map(([from, count]) => ({ from, to: LOOK_ALIKES[from]!, count })) };
}

/** The text that is sent: the smart-encoded one when asked for and it applies. */
export function textToSend(text: string, smartEncoding: boolean): string {
  return (smartEncoding && smartEncode(text)?.body) || text;
}

export interface Preview {
  encoding: Encoding;
  segments: number;
  /** Unicode code points. */
  characters: number;
  /** Room left in the last segment, in the encoding's units (GSM-7 septets, an escape two; UCS-2 code units). */
  charactersLeftInLastSegment: number;
  smartEncoded: SmartEncoded | null;
}

const GSM_EXTENSION = new Set("\f^{}\\[~]|€");

/** How a text would be sent: the counts of what is sent (the smart-encoded text when asked for and it applies). */
export function preview(text: string, smartEncoding: boolean): Preview {
  const smart = smartEncoding ? (smartEncode(text) ?? null) : null;
  const sent = smart?.body ?? text;
  const { encoding, parts } = splitSegments(sent);
  const capacity = parts.length === 1 ? (encoding === "GSM-7" ? 160 : 70) : encoding === "GSM-7" ? 153 : 67;
  let used = 0;
  for (const ch of parts[parts.length - 1]!) used += encoding === "GSM-7" ? (GSM_EXTENSION.has(ch) ? 2 : 1) : ch.length;
  return {
    encoding,
    segments: parts.length,
    characters: [...sent].length,
    charactersLeftInLastSegment: Math.max(0, capacity - used),
    smartEncoded: smart,
  };
}
