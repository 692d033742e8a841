// A message's or campaign's metadata (the caller's own string values) as a small key/value table.
import type { Schemas } from "./api.js";

export function MetadataTable({ metadata, label }: { metadata: Schemas["Metadata"] | null; label: string }) {
  const entries = Object.entries(metadata ?? {});
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <table class="table metadata" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <td data-label="Key">
              <code>{key}</code>
            </td>
            <td data-label="Value" class="pre">
              {String(value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
