// The columns of an imported file with a header, each with what it becomes: a contact field, a custom field, or
// nothing. Columns whose names are no contact field are listed and ignored until the user says otherwise.
import { customKeyOf, type ColumnUse, type ContactCsv } from "../../csv.js";

const FIELDS = [
  ["phone", "Phone"],
  ["firstName", "First name"],
  ["lastName", "Last name"],
  ["group", "Group (name or id)"],
  ["tags", "Tags (split at ; or ,)"],
  ["timeZone", "Time zone"],
] as const;

const valueOf = (use: ColumnUse) => (use.to === "custom" ? `custom:${use.key}` : use.to);

export function ColumnMapping({ csv, onChange }: { csv: ContactCsv; onChange: (mapping: ColumnUse[]) => void }) {
  const quoted = csv.unknown.map((c) => `“${c.trim()}”`).join(", ");
  // The sample's line of the file, as the table of rows not imported numbers them (line 1 is the header).
  const sampleLine = `Line ${csv.rows[0]?.line ?? 2}`;
  return (
    <div data-testid="column-mapping">
      {csv.unknown.length > 0 && (
        <p class="notice notice-info" role="status">
          {csv.unknown.length === 1 ? `Column ${quoted} is` : `Columns ${quoted} are`} not a contact field: ignored unless you choose what{" "}
          {csv.unknown.length === 1 ? "it becomes" : "they become"} below.
        </p>
      )}
      <table class="table" aria-label="Columns of the file">
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">{sampleLine}</th>
            <th scope="col">Import as</th>
          </tr>
        </thead>
        <tbody>
          {csv.columns.map((column, i) => {
            const key = customKeyOf(column);
            const id = `column-use-${i}`;
            return (
              <tr key={id}>
                <td data-label="Column">{column.trim() || <span class="muted">(no name)</span>}</td>
                <td data-label={sampleLine}>{csv.sample[i] || <span class="muted">—</span>}</td>
                <td data-label="Import as">
                  <select
                    id={id}
                    aria-label={`Import column “${column.trim()}” as`}
                    value={valueOf(csv.mapping[i] ?? { to: "ignore" })}
                    onChange={(e) => {
                      const v = e.currentTarget.value;
                      const use: ColumnUse = v.startsWith("custom:") ? { to: "custom", key: v.slice(7) } : ({ to: v } as ColumnUse);
                      onChange(csv.columns.map((_c, j) => (j === i ? use : (csv.mapping[j] ?? { to: "ignore" }))));
                    }}
                  >
                    {FIELDS.map(([to, label]) => (
                      <option key={to} value={to}>
                        {label}
                      </option>
                    ))}
                    {key && <option value={`custom:${key}`}>Custom field “{key}”</option>}
                    <option value="ignore">Nothing (ignore it)</option>
                  </select>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
