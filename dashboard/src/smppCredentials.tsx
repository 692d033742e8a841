// An account's SMPP credentials as a table, with each one's open sessions (docs/SMPP.md, "For client
// applications"): on the operator's page of the account (with a delete button) and on the account's own
// Settings → API keys page (read only).
import type { Schemas } from "./api.js";
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
    <table class="table">
      <caption class="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">system_id</th>
          <th scope="col">Open sessions</th>
          <th scope="col">Submits a second per bind</th>
          <th scope="col">Allowed addresses</th>
          <th scope="col">Made</th>
          {onDelete && (
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.map((c) => (
          <tr key={c.systemId} data-system-id={c.systemId}>
            <td data-label="system_id">
              <code>{c.systemId}</code>
              {c.test && <span class="muted"> (test)</span>}
            </td>
            <td data-label="Open sessions">
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
            </td>
            <td data-label="Submits a second per bind">{c.submitsPerSecond}</td>
            <td data-label="Allowed addresses">{c.allowedIps.length === 0 ? "any" : c.allowedIps.join(", ")}</td>
            <td data-label="Made">{formatTime(c.createdAt)}</td>
            {onDelete && (
              <td>
                <button type="button" class="danger small" onClick={() => onDelete(c)} aria-label={`Delete SMPP credentials ${c.systemId}`}>
                  Delete
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
