// Inbound keywords: the whole body, trimmed, case-insensitive, with trailing "." or "!" ignored. A sentence that
// merely contains one ("please stop calling") is an ordinary message.
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

export function matchKeyword(body: string): Keyword | undefined {
  const word = body
    .trim()
    .replace(/[.!]+$/, "")
    .trim()
    .toUpperCase();
  for (const kind of Object.keys(KEYWORDS) as KeywordKind[]) {
    if (KEYWORDS[kind].includes(word)) return { kind, word };
  }
  return undefined;
}
