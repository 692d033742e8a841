// An account's SMPP credentials as a table, with each one's open sessions (docs/SMPP.md, "For client
// applications"): on the operator's page of the account (with a delete button) and on the account's own
// Settings → API keys page (read only).
import type { Schemas } from "./api.js";
import { ListTable } from "./listTable.js";
import { formatTime } from "./time.js";

export type SmppCredential = Schemas["SmppCredential"];

export function SmppCredentialsTable({
  items,
  caption,
  onDelete,
}: {
  items: SmppCredential[];
  caption: string;
  onDelete?: (c: SmppCredential) => void;
}) {
  return (
    <ListTable
      caption={caption}
      rows={items}
      rowKey={(c) => c.systemId}
      rowAttributes={(c) => ({ "data-system-id": c.systemId })}
      columns={[
        {
          label: "system_id",
          cell: (c) => (
            <>
              <code>{c.systemId}</code>
              {c.test && <span class="muted"> (test)</span>}
            </>
          ),
        },
        {
          label: "Open sessions",
          cell: (c) => (
            <>
              {`${c.sessions.length} of up to ${c.maxBinds}`}
              {c.sessions.length > 0 && (
                <ul class="plain">
                  {c.sessions.map((s) => (
                    <li key={`${s.boundAt}-${s.remoteAddress}`} data-session-mode={s.mode}>
                      {`${s.mode} from ${s.remoteAddress}, bound ${formatTime(s.boundAt)}`}
                    </li>
                  ))}
                </ul>
              )}
            </>
          ),
        },
        { label: "Submits a second per bind", cell: (c) => c.submitsPerSecond },
        { label: "Allowed addresses", cell: (c) => (c.allowedIps.length === 0 ? "any" : c.allowedIps.join(", ")) },
        { label: "Made", cell: (c) => formatTime(c.createdAt) },
      ]}
      actions={
        onDelete
          ? (c) => (
              <button type="button" class="danger small" onClick={() => onDelete(c)} aria-label={`Delete SMPP credentials ${c.systemId}`}>
                Delete
              </button>
            )
          : undefined
      }
    />
  );
}
