// Operator → Price lists: every list with its size and default, and the editor: a list is edited as the CSV
// operators keep (prefix or country, price in currency units), typed or imported from a file, and put whole
// (docs/BILLING.md, "Price lists"). Money goes through dashboard/src/money.ts: integers of micro-units only.
import { useState } from "preact/hooks";
import { ok, type Schemas } from "../../api.js";
import { formatMicros, microsToDecimal } from "../../money.js";
import { readPriceListCsv, writePriceListCsv } from "../../priceListCsv.js";
import { formatTime } from "../../time.js";
import { bound, InputField, TextAreaField, SubmitRow } from "../../forms.js";
import {
  ConfirmDialog,
  FormPanel,
  FormToggle,
  Loading,
  Notice,
  ProblemMessage,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  useSession,
} from "../../ui.js";

type PriceList = Schemas["PriceList"];

const EXAMPLE = "prefix,price\n+4477,0.032\n+1415,0.005\nUS,0.0075\ndefault,0.05\n";

function PriceListEditor({ list, onSaved }: { list?: PriceList; onSaved: (saved: PriceList) => Promise<void> }) {
  const { client, canWrite } = useSession();
  const [name, setName] = useState(list?.name ?? "");
  const [currency, setCurrency] = useState(list?.currency ?? "USD");
  const [text, setText] = useState(list ? writePriceListCsv(list.entries, list.default, microsToDecimal) : EXAMPLE);
  const parsed = readPriceListCsv(text);
  const id = list ? `price-list-${list.name}` : "new-price-list";
  const save = useAction(async () => {
    const saved = await ok(
      client.PUT("/api/v1/price-lists/{name}", {
        params: { path: { name } },
        body: { currency: currency.toUpperCase(), entries: parsed.entries, default: parsed.default },
      }),
    );
    await onSaved(saved);
  });
  return (
    <TitledForm
      titleId={`${id}-title`}
      title={list ? `${canWrite ? "Edit" : "Price list"} “${list.name}”` : "New price list"}
      readOnly={!canWrite}
      onSubmit={() => void save.run()}
    >
      <div class="grid-2">
        <InputField
          id={`${id}-name`}
          label="Name"
          hint="Letters, digits, . _ or -; up to 64."
          required
          pattern="[A-Za-z0-9._\-]{1,64}"
          readOnly={!!list}
          {...bound(name, setName, save.error, "/path/name")}
        />
        <InputField
          id={`${id}-currency`}
          label="Currency"
          hint="ISO 4217, e.g. USD or EUR."
          required
          pattern="[A-Za-z]{3}"
          maxLength={3}
          {...bound(currency, setCurrency, save.error, "/body/currency")}
        />
      </div>
      <TextAreaField
        id={`${id}-csv`}
        label="Prices (CSV)"
        hint="One line per prefix (+4477) or country (GB), then the price of a segment in currency units; default,price for the rest. The longest prefix wins, then the country, then the default."
        rows={10}
        value={text}
        onValue={setText}
      />
      <div class="field">
        <label for={`${id}-file`}>Import a CSV file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void file.text().then(setText);
          }}
        />
      </div>
      <p role="status" data-testid={`${id}-summary`}>
        {parsed.entries.length} {parsed.entries.length === 1 ? "line" : "lines"},{" "}
        {parsed.default === null
          ? "no default (unlisted destinations are refused)"
          : `default ${formatMicros(parsed.default, currency.toUpperCase())}`}
      </p>
      {parsed.errors.length > 0 && (
        <ul class="field-error" aria-label="Problems in the prices">
          {parsed.errors.slice(0, 20).map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
      <SubmitRow action={save} failed="Price list not saved" busy="Saving…" disabled={parsed.errors.length > 0}>
        Save price list
      </SubmitRow>
    </TitledForm>
  );
}

export function PriceLists() {
  const { client, canWrite } = useSession();
  const lists = useAsync(async () => (await ok(client.GET("/api/v1/price-lists"))).data, []);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<PriceList | undefined>();
  const [notice, setNotice] = useNotice();
  const saved = async (list: PriceList) => {
    setAdding(false);
    setEditing(undefined);
    setNotice(`Price list “${list.name}” saved: ${list.entries.length} lines. Messages accepted from now on are priced by it.`);
    await lists.reload();
  };
  return (
    <section>
      <h1 tabIndex={-1}>Price lists</h1>
      <p class="muted">
        What each destination costs the accounts that use a list (an account&apos;s list is set on its page, under Billing). A change
        applies to messages accepted after it.
      </p>
      {canWrite && (
        <div class="toolbar">
          <FormToggle label="New price list" panelId="new-price-list-panel" open={adding} onToggle={setAdding} />
        </div>
      )}
      <FormPanel id="new-price-list-panel" open={adding}>
        {adding && <PriceListEditor onSaved={saved} />}
      </FormPanel>
      {notice && <Notice>{notice}</Notice>}
      <ProblemMessage error={lists.error} prefix="Could not load the price lists" />
      {!lists.data && lists.loading && <Loading what="price lists" />}
      {lists.data?.length === 0 && <p class="muted">No price lists yet: messages are not priced.</p>}
      {lists.data && lists.data.length > 0 && (
        <table class="table">
          <caption class="sr-only">Price lists, by name</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Currency</th>
              <th scope="col" class="number">
                Lines
              </th>
              <th scope="col">Default</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {lists.data.map((l) => (
              <tr key={l.name} data-price-list={l.name}>
                <td data-label="Name">{l.name}</td>
                <td data-label="Currency">{l.currency}</td>
                <td data-label="Lines" class="number">
                  {l.entries.length}
                </td>
                <td data-label="Default">{l.default === null ? <span class="muted">none</span> : formatMicros(l.default, l.currency)}</td>
                <td data-label="Updated">{formatTime(l.updatedAt)}</td>
                <td data-label="Actions">
                  <button
                    type="button"
                    class="small"
                    onClick={() => setEditing(editing === l.name ? undefined : l.name)}
                    aria-label={`${editing === l.name ? "Close" : canWrite ? "Edit" : "Show"} price list ${l.name}`}
                  >
                    {editing === l.name ? "Close" : canWrite ? "Edit" : "Show"}
                  </button>{" "}
                  {canWrite && (
                    <button type="button" class="small danger" onClick={() => setDeleting(l)} aria-label={`Delete price list ${l.name}`}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && lists.data?.find((l) => l.name === editing) && (
        <section class="card">
          <PriceListEditor key={editing} list={lists.data.find((l) => l.name === editing)} onSaved={saved} />
        </section>
      )}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete price list “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete price list"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/price-lists/{name}", { params: { path: { name: deleting!.name } } }));
          setNotice(`Price list “${deleting!.name}” deleted.`);
          await lists.reload();
        }}
      >
        <p>A list an account still uses cannot be deleted: move those accounts to another list first.</p>
      </ConfirmDialog>
    </section>
  );
}
