// A long identifier (a UUID) as people read it in a list: its first eight characters and its last four, the whole
// of it in the tooltip and for screen readers, and a "Copy" button that copies all of it. `full` shows it whole
// (a resource's own page), with the same button.
import { useRef, useState } from "preact/hooks";
import { copyText } from "./ui.js";

/** `0193c3a4…5f60` for an id longer than 16 characters; a shorter one whole. */
export const shortId = (id: string) => (id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);

export function Identifier({ id, label = "id", full = false }: { id: string; label?: string; full?: boolean }) {
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState(false);
  return (
    <span class="identifier">
      <code ref={code} title={id} aria-label={`${label} ${id}`} data-id={id}>
        {full ? id : shortId(id)}
      </code>
      <button
        type="button"
        class="small"
        aria-label={`${copied ? "Copied" : "Copy"} ${label} ${id}`}
        onClick={() =>
          void copyText(id, code.current).then((ok) => {
            setCopied(ok);
            if (ok) setTimeout(() => setCopied(false), 3000);
          })
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
