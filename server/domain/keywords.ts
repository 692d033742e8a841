// Inbound keywords: the whole body, as people write it — Unicode normalised (NFKC: fullwidth ＳＴＯＰ is STOP),
// zero-width characters removed, punctuation and quotes around it ignored ("STOP", Stop!!, stop?, STOP,),
// any case. A sentence that merely contains one ("please stop calling") is an ordinary message, and so is a
// word split by a space ("st op").
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

/** Zero-width spaces and joiners, the word joiner, the BOM and the soft hyphen: invisible inside a word. */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
/** Punctuation (quotes included) and white space at either end. */
const AROUND = /^[\p{P}\s]+|[\p{P}\s]+$/gu;

export function matchKeyword(body: string): Keyword | undefined {
  const word = body.normalize("NFKC").replace(INVISIBLE, "").replace(AROUND, "").toUpperCase();
  for (const kind of Object.keys(KEYWORDS) as KeywordKind[]) {
    if (KEYWORDS[kind].includes(word)) return { kind, word };
  }
  return undefined;
}
