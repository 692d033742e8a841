// Live segment count of a text, with the server's own rules (common/smartEncoding.ts, dependency-free): what is
// sent, in how many segments, in which encoding, and the room left in the last one. Under a text that is UCS-2
// only because of look-alike characters (curly quotes, dashes), the smart-encoding suggestion and its checkbox.
import { useState } from "preact/hooks";
import { preview, smartEncode, type Replacement } from "../../common/smartEncoding.js";
import { ok } from "./api.js";
import { useAsync, useSession } from "./ui.js";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "1 segment · GSM-7 · 127 characters left": of the text as sent (smart-encoded when asked and it applies). */
export function segmentSummary(text: string, smartEncoding = false): string {
  const p = preview(text, smartEncoding);
  const left = `${plural(p.charactersLeftInLastSegment, "character")} left`;
  return `${plural(p.segments, "segment")} · ${p.encoding} · ${left}${p.smartEncoded ? " (smart-encoded)" : ""}`;
}

export function SegmentCount({ text, id, smartEncoding = false }: { text: string; id?: string; smartEncoding?: boolean }) {
  return (
    <small class="hint" id={id} data-testid={id}>
      {segmentSummary(text, smartEncoding)}
    </small>
  );
}

/** Whether a form smart-encodes its text: the account's setting until the user ticks or unticks the box. */
export function useSmartEncoding(): [boolean, (on: boolean) => void] {
  const { client } = useSession();
  const account = useAsync(() => ok(client.GET("/api/v1/account")), []);
  const [chosen, setChosen] = useState<boolean | undefined>();
  return [chosen ?? account.data?.settings.smartEncoding ?? false, setChosen];
}

/** The request's smartEncoding: said only when it makes a difference (else the account's setting applies, alike). */
export function smartField(text: string, on: boolean): { smartEncoding?: boolean } {
  return smartEncode(text) ? { smartEncoding: on } : {};
}

/** The ids that describe a text field: its count, and the suggestion while it is shown. */
export const countIds = (id: string, text: string) => (smartEncode(text) ? `${id} ${id}-smart` : id);

/** Invisible characters (spaces, zero-width ones) are named by their code point. */
const shown = (ch: string) => (/^[\s\u200B\u2060\uFEFF]$/u.test(ch) ? `U+${ch.codePointAt(0)!.toString(16).toUpperCase()}` : ch);
const QUOTES_OR_DASHES = new Set(["'", '"', "-"]);

function replacementList(replacements: Replacement[]): string {
  return replacements.map((r) => `${shown(r.from)} → ${r.to ? shown(r.to) : "nothing"}${r.count > 1 ? ` (${r.count}×)` : ""}`).join(", ");
}

/** The count, and under a text smart encoding would make GSM-7, the suggestion with its checkbox. */
export function MessageCount({ text, id, smart, onSmart }: { text: string; id: string; smart: boolean; onSmart: (on: boolean) => void }) {
  const encoded = smartEncode(text);
  const what = encoded?.replacements.every((r) => QUOTES_OR_DASHES.has(r.to)) ? "Curly quotes or dashes" : "Look-alike characters";
  return (
    <>
      <SegmentCount text={text} id={id} smartEncoding={smart} />
      {encoded && (
        <div class="smart-suggestion" id={`${id}-smart`} data-testid={`${id}-smart`}>
          <p>
            {what} make this UCS-2 ({plural(preview(text, false).segments, "segment")}). Smart encoding would send it as GSM-7 (
            {plural(preview(text, true).segments, "segment")}), replacing {replacementList(encoded.replacements)}.
          </p>
          <label class="inline">
            <input type="checkbox" checked={smart} onChange={(e) => onSmart(e.currentTarget.checked)} /> Use smart encoding
          </label>
        </div>
      )}
    </>
  );
}
