// CSV import on the Contacts page: parse, map the header's columns (ColumnMapping), send in pages under the rate
// limit, report every row that failed.
import { useState } from "preact/hooks";
import { importContacts } from "../../api.js";
import { importContactRows, type ImportOutcome } from "../../contactImport.js";
import { contactsFromCsv, CsvError, type ContactCsv } from "../../csv.js";
import { Field, ProblemMessage, TitledForm, useAction, useNotice, useSession } from "../../ui.js";
import { ColumnMapping } from "./columnMapping.js";

export function ImportForm({ onImported }: { onImported: () => void }) {
  const { client } = useSession();
  const [parsed, setParsed] = useState<(ContactCsv & { name: string; text: string }) | undefined>();
  const [parseError, setParseError] = useState<string | undefined>();
  const [result, setResult] = useNotice<ImportOutcome>();
  const [waiting, setWaiting] = useState<string | undefined>();
  const action = useAction(async () => {
    try {
      const onWait = (seconds: number, fromLine: number) =>
        setWaiting(
          `Each imported row counts against the API key's rate limit: waiting ${Math.ceil(seconds)} s before sending from line ${fromLine}…`,
        );
      setResult(
        await importContactRows(parsed!.rows, (contacts) => importContacts(client, contacts).finally(() => setWaiting(undefined)), {
          onWait,
        }),
      );
    } finally {
      setWaiting(undefined);
    }
    onImported();
  });

  const onFile = async (file: File | undefined) => {
    setResult(undefined);
    setParsed(undefined);
    setParseError(undefined);
    action.clearError();
    if (!file) return;
    try {
      const text = await file.text();
      const csv = contactsFromCsv(text);
      if (csv.rows.length === 0) setParseError(`${file.name} has no rows.`);
      else setParsed({ ...csv, name: file.name, text });
    } catch (error) {
      setParseError(
        error instanceof CsvError ? `${file.name}, ${error.message}.` : `${file.name} could not be read: ${(error as Error).message}`,
      );
    }
  };

  return (
    <TitledForm
      titleId="import-title"
      title="Import contacts from CSV"
      onSubmit={() => {
        if (parsed) void action.run();
      }}
    >
      <Field
        id="import-file"
        label="CSV file"
        hint={
          <>
            Columns <code>phone,firstName,group</code> (group optional: an existing group's name or id), one contact a line; with a header
            line, any columns in any order (<code>lastName</code>, <code>tags</code>, <code>timeZone</code>, <code>custom.plan</code>…), and
            you choose what each becomes. Valid rows are imported even when others fail.
          </>
        }
        error={parseError}
      >
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv,text/plain"
          aria-describedby="import-file-hint"
          onChange={(e) => void onFile(e.currentTarget.files?.[0])}
        />
      </Field>
      {parsed && (
        <p class="muted">
          {parsed.rows.length} row{parsed.rows.length === 1 ? "" : "s"} read from {parsed.name}
          {parsed.header ? " (line 1 is the header)" : ""}.
        </p>
      )}
      {parsed?.header && (
        <ColumnMapping
          csv={parsed}
          onChange={(mapping) => setParsed({ ...parsed, ...contactsFromCsv(parsed.text, mapping), unknown: parsed.unknown })}
        />
      )}
      <ProblemMessage error={action.error} prefix="Import failed" />
      {waiting && (
        <p class="muted" role="status">
          {waiting}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={!parsed || action.busy}>
          {action.busy ? "Importing…" : parsed ? `Import ${parsed.rows.length} row${parsed.rows.length === 1 ? "" : "s"}` : "Import"}
        </button>
      </div>
      {result && (
        <div class="import-result" role="status">
          <p class={result.failed ? "notice notice-info" : "notice notice-ok"}>
            Imported {result.imported} contact{result.imported === 1 ? "" : "s"}
            {result.failed
              ? `; ${result.failed} row${result.failed === 1 ? "" : "s"} failed and ${result.failed === 1 ? "was" : "were"} not imported`
              : ""}
            .
          </p>
          {result.stopped && (
            <p class="problem">
              The import stopped at line {result.stopped.fromLine}: {result.stopped.detail} Rows from that line on may not have been
              imported. Importing the file again is safe: contacts already stored are reported as existing, not added twice.
            </p>
          )}
          {result.errors.length > 0 && (
            <table class="table" aria-label="Rows not imported">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Field</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {result.errors.map((e) => (
                  <tr key={`${e.line}-${e.field}`}>
                    <td data-label="Line">{e.line}</td>
                    <td data-label="Field">
                      <code>{e.field}</code>
                    </td>
                    <td data-label="Problem">{e.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </TitledForm>
  );
}
