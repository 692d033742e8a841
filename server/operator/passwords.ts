// What a password must be (docs/USERS.md): at least 12 characters, not a commonly breached one (the list
// @zxcvbn-ts/language-common ships), and hard to guess by zxcvbn's score (at least 3 of 4).
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";
import { PASSWORD_MIN_LENGTH } from "./userRoles.js";

/** Commonly breached passwords, lower-cased (49,000 of them; those under 12 characters are refused anyway). */
const BREACHED = new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));

/**
 * zxcvbn with the language-neutral dictionaries and keyboard graphs (qwerty, dvorak, keypads), made on first use:
 * building its ranked dictionaries takes a noticeable part of a second, which a worker process never needs.
 */
let zxcvbn: ZxcvbnFactory | undefined;
const judge = (password: string) => (zxcvbn ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs })).check(password);
/** zxcvbn's score a password needs: 3 of 4, "safely unguessable" (about 10^8 guesses and more). */
export const PASSWORD_MIN_SCORE = 3;
/** zxcvbn's warnings (translation keys), said in words. */
const WEAKNESS: Record<string, string> = {
  straightRow: "a straight row of keys is easy to guess",
  keyPattern: "a short pattern of keys is easy to guess",
  simpleRepeat: "repeated characters (aaa) are easy to guess",
  extendedRepeat: "repeated patterns (abcabc) are easy to guess",
  sequences: "sequences (abc, 6543) are easy to guess",
  recentYears: "recent years are easy to guess",
  dates: "dates are easy to guess",
  topTen: "it is one of the most used passwords",
  topHundred: "it is a very often used password",
  common: "it is a commonly used password",
  similarToCommon: "it is close to a commonly used password",
  wordByItself: "a single word is easy to guess",
  namesByThemselves: "names alone are easy to guess",
  commonNames: "common names are easy to guess",
  userInputs: "it is made of your own details",
  pwned: "it appeared in a data breach",
};

/** Why a password is refused, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (BREACHED.has(password.toLowerCase())) return "is a commonly breached password: choose another";
  const judged = judge(password.slice(0, 200));
  if (judged.score < PASSWORD_MIN_SCORE) {
    const why = judged.feedback.warning ? WEAKNESS[judged.feedback.warning] : undefined;
    return `is too easy to guess (strength ${judged.score} of 4, at least ${PASSWORD_MIN_SCORE} needed${why ? `: ${why}` : ""}): add words or characters nobody would guess`;
  }
  return undefined;
}
