// Inbound keywords: the whole body, as people write it — Unicode normalised (NFKC: fullwidth ＳＴＯＰ is STOP),
// zero-width characters and bidi controls removed, punctuation and quotes around it ignored ("STOP", Stop!!,
// stop?, STOP,), letters that look like Latin ones read as those (Greek Τ, Cyrillic т and О: Unicode's
// confusables table, from the `confusables` package, not a hand list), any case. A sentence that merely
// contains one ("please stop calling") is an ordinary message, and so is a word split by a space ("st op") or
// another word beside it ("stop all"): the contract's list is the whole list.
import { remove as lookalikesAsLatin } from "confusables";

export type KeywordKind = "opt_out" | "opt_in" | "help";

const KEYWORDS: Record<KeywordKind, readonly string[]> = {
  opt_out: ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"],
  opt_in: ["START", "UNSTOP", "YES"],
  help: ["HELP", "INFO"],
};

export interface Keyword {
  kind: KeywordKind;
  /** The keyword as listed (upper case). */
  word: string;
}

/**
 * Invisible inside a word: zero-width spaces and joiners, the word joiner, the BOM, the soft hyphen, and the
 * bidi controls (marks, embeddings, overrides, isolates, the Arabic letter mark).
 */
const INVISIBLE = /[\u200B-\u200F\u2060\uFEFF\u00AD\u202A-\u202E\u2066-\u2069\u061C]/g;
/** Punctuation (quotes included) and white space at either end. */
const AROUND = /^[\p{P}\s]+|[\p{P}\s]+$/gu;

export function matchKeyword(body: string): Keyword | undefined {
  const word = lookalikesAsLatin(body.normalize("NFKC").replace(INVISIBLE, "").replace(AROUND, "")).toUpperCase();
  for (const kind of Object.keys(KEYWORDS) as KeywordKind[]) {
    if (KEYWORDS[kind].includes(word)) return { kind, word };
  }
  return undefined;
}
