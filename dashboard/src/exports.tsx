// Downloads of the account's exports (GET /api/v1/exports/…, docs/EXPORTS.md) and the opt-out list's import
// from such a file. A download is fetched with the session's key (a link could not carry it) and saved from
// the browser's memory.
import { useState } from "preact/hooks";
import { ok } from "./api.js";
import { CsvError, parseCsv } from "./csv.js";
import { count } from "./usage.js";
import { Notice, ProblemMessage, saveFile, useAction, useNotice, useSession } from "./ui.js";

type ExportPath = "/api/v1/exports/messages" | "/api/v1/exports/contacts" | "/api/v1/exports/opt-outs";

/** A button that saves an export as a CSV file. */
export function ExportButton({ path, label }: { path: ExportPath; label: string }) {
  const { client } = useSession();
  const save = useAction(async () => {
    const { response } = await client.GET(path, { parseAs: "blob" });
    if (!response.ok) throw new Error(`The export answered ${response.status}.`);
    const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "export.csv";
    saveFile(await response.blob(), name);
  });
  return (
    <>
      <button type="button" onClick={() => void save.run()} disabled={save.busy}>
        {save.busy ? "Preparing the file…" : label}
      </button>
      <ProblemMessage error={save.error} prefix="Not exported" />
    </>
  );
}

/** Settings → Opt-outs: a CSV file (an export of this or another account: its `phone` column, else the first) added to the list. */
export function OptOutImport({ onDone }: { onDone: () => Promise<void> }) {
  const { client } = useSession();
  const [result, setResult] = useNotice();
  const [fileError, setFileError] = useState<string | undefined>();
  const importFile = useAction(async (file: File) => {
    setResult(undefined);
    setFileError(undefined);
    let phones: string[];
    try {
      const records = parseCsv(await file.text());
      const column = Math.max(0, records[0]?.fields.findIndex((f) => f.toLowerCase() === "phone") ?? 0);
      const header = records[0]?.fields[column]?.toLowerCase() === "phone";
      phones = (header ? records.slice(1) : records).map((r) => r.fields[column] ?? "");
    } catch (error) {
      setFileError(error instanceof CsvError ? `${file.name}, ${error.message}.` : `${file.name} could not be read.`);
      return;
    }
    if (phones.length === 0) return setFileError(`${file.name} has no numbers.`);
    const done = await ok(
      client.POST("/api/v1/opt-outs/import", { body: { optOuts: phones.slice(0, 10_000).map((phone) => ({ phone })) } }),
    );
    const errors = done.errors.slice(0, 5).map((e) => `row ${e.row}: ${e.detail}`);
    setResult(
      `${count(done.imported)} added, ${count(done.existing)} already on the list, ${count(done.failed)} not added${errors.length ? ` (${errors.join("; ")})` : ""}.`,
    );
    await onDone();
  });
  return (
    <div class="card">
      <h2 id="opt-out-import-title">Import a file</h2>
      <p class="muted">A CSV file with a phone column, such as this page's export (up to 10,000 numbers a file).</p>
      <label for="opt-out-file">CSV file</label>
      <input
        id="opt-out-file"
        type="file"
        accept=".csv,text/csv"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void importFile.run(file);
        }}
      />
      {fileError && <p class="error">{fileError}</p>}
      <ProblemMessage error={importFile.error} prefix="Not imported" />
      {result && <Notice>{result}</Notice>}
    </div>
  );
}
