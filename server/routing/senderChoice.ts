// Which sender of a pool a message goes out as (docs/ROUTING.md, "Sender pools"), pure: the sender the recipient
// last got from the account when the pool is sticky and still has it (at its cap the message waits for it);
// else one of the recipient's country calling code; else any; among those, the least recently used that is
// under its cap now (a GCRA bucket per sender, `rate` messages a second), or, when none is, the message waits
// for the first to be (its turn handed out by the caller: db/capTurns.ts). Books are
// changed in place: the caller writes them back.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

export interface Book {
  sender: string;
  /** Seconds since the epoch (0: never). */
  lastUsed: number;
  tat: number;
}

export interface Pool {
  senders: string[];
  sticky: boolean;
  /** Messages a second per sender, or null. */
  rate: number | null;
}

export type SenderChoice = { sender: string; slot: number } | { sender: string; waitUntil: number };

const callingCode = (e164: string) => (e164.startsWith("+") ? parsePhoneNumberFromString(e164)?.countryCallingCode : undefined);

/**
 * `books` has one entry per sender the account may still use (an E.164 sender it no longer holds has none);
 * `horizon` is how far ahead of `now` a slot may be taken (seconds since the epoch).
 */
export function chooseSender(
  pool: Pool,
  recipient: string,
  last: string | undefined,
  books: Map<string, Book>,
  now: number,
  horizon: number,
): SenderChoice | undefined {
  const usable = pool.senders.filter((s) => books.has(s));
  if (usable.length === 0) return undefined;
  const free = (b: Book) => pool.rate === null || Math.max(b.tat, now) <= horizon;
  const pay = (b: Book): SenderChoice => {
    const slot = Math.max(b.tat, now);
    if (pool.rate !== null) b.tat = slot + 1 / pool.rate;
    b.lastUsed = Math.max(now, b.lastUsed + 1e-6); // later than any choice before it in this batch
    return { sender: b.sender, slot };
  };
  if (pool.sticky && last !== undefined && books.has(last) && usable.includes(last)) {
    const book = books.get(last)!;
    return free(book) ? pay(book) : { sender: last, waitUntil: book.tat };
  }
  const code = callingCode(recipient);
  const local = code === undefined ? [] : usable.filter((s) => callingCode(s) === code);
  const candidates = (local.length > 0 ? local : usable).map((s) => books.get(s)!);
  const open = candidates.filter(free);
  if (open.length === 0) {
    const first = candidates.reduce((a, b) => (b.tat < a.tat ? b : a));
    return { sender: first.sender, waitUntil: first.tat };
  }
  return pay(open.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a)));
}
