// API keys, shared by Settings → API keys (the account's own keys) and the operator's page of an account: the
// list, the form that makes a key, and the new key, shown this once.
import { useState } from "preact/hooks";
import type { CreatedKey, KeyScope, KeySummary, NewKeyRequest } from "./api.js";
import { ListTable } from "./listTable.js";
import { PagedRows, type PagedList } from "./paging.js";
import { formatTime, localInputToUtc, timeZone, utcOffset } from "./time.js";
import { bound, InputField, Options, SelectField, SubmitRow } from "./forms.js";
import { ShownOnce, TitledForm, useAction } from "./ui.js";

const SCOPES: { scope: KeyScope; label: string }[] = [
  { scope: "full", label: "full: everything" },
  { scope: "send", label: "send: read, schedule and cancel messages and campaigns" },
  { scope: "read", label: "read: look only" },
];

/** Makes a key: name, scope, optional expiry (local time, sent as UTC), test. `testOnly`: a test key's form. */
export function CreateKeyForm({
  id,
  testOnly = false,
  onCreate,
}: {
  id: string;
  testOnly?: boolean;
  onCreate: (body: NewKeyRequest) => Promise<void>;
}) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState<KeyScope>("full");
  const [expires, setExpires] = useState("");
  const [test, setTest] = useState(testOnly);
  const create = useAction(async () => {
    const expiresAt = expires ? (localInputToUtc(expires) ?? expires) : null;
    await onCreate({ ...(name.trim() ? { name: name.trim() } : {}), scope, expiresAt, test: testOnly || test });
    setName("");
    setExpires("");
  });
  return (
    <TitledForm titleId={`${id}-title`} title="Create a key" onSubmit={() => void create.run()}>
      <div class="grid-2">
        <InputField id={`${id}-name`} label="Key name (optional)" maxLength={100} {...bound(name, setName, create.error, "/body/name")} />
        <SelectField id={`${id}-scope`} label="Scope" {...bound(scope, setScope, create.error, "/body/scope")}>
          <Options items={SCOPES} value={(s) => s.scope} label={(s) => s.label} />
        </SelectField>
        <InputField
          id={`${id}-expires`}
          label="Expires (optional)"
          hint={`Your time zone: ${timeZone()} (${utcOffset()}). Empty: the key never expires.`}
          type="datetime-local"
          {...bound(expires, setExpires, create.error, "/body/expiresAt")}
        />
      </div>
      <label class="inline">
        <input type="checkbox" checked={testOnly || test} disabled={testOnly} onChange={(e) => setTest(e.currentTarget.checked)} /> Test
        key: its messages never reach a carrier
      </label>
      {testOnly && <p class="muted">You are signed in with a test key: it makes test keys only.</p>}
      <SubmitRow action={create} failed="Key not created" busy="Creating…">
        Create key
      </SubmitRow>
    </TitledForm>
  );
}

/** A key just made: the whole key in a field to copy, shown this once (the API never shows it again). */
export function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <ShownOnce
      id="new-key"
      title={`New key${created.name ? ` “${created.name}”` : ""}`}
      label="The new API key"
      value={created.key}
      noun="Key"
      doneLabel="I have stored it"
      onDone={onDone}
    >
      <p>
        <strong>Copy it now: it is shown this once.</strong> Only its id, <code>{created.keyId}</code>, is kept on view; store the key where
        the program that uses it can read it.
      </p>
    </ShownOnce>
  );
}

const expired = (k: KeySummary) => k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();

/**
 * The keys of an account, a page at a time, newest first; `empty` is said when it has none. `onRevoke` (absent for
 * a caller that may not) adds a Revoke button to every key but `currentKeyId`, the key the caller is signed in with.
 */
export function KeyList({
  list,
  empty,
  currentKeyId,
  onRevoke,
}: {
  list: PagedList<KeySummary>;
  empty: string;
  currentKeyId?: string;
  onRevoke?: (k: KeySummary) => void;
}) {
  return (
    <PagedRows list={list} noun="keys" one="key" errorPrefix="Could not load the keys" empty={empty}>
      {(items) => <KeysTable items={items} currentKeyId={currentKeyId} onRevoke={onRevoke} rowsRef={list.rowsRef} />}
    </PagedRows>
  );
}

function KeysTable({
  items,
  currentKeyId,
  onRevoke,
  rowsRef,
}: {
  items: KeySummary[];
  currentKeyId?: string;
  onRevoke?: (k: KeySummary) => void;
  rowsRef: (element: HTMLElement | null) => void;
}) {
  return (
    <ListTable
      caption="The account's API keys, newest first"
      rows={items}
      bodyRef={rowsRef}
      rowKey={(k) => k.keyId}
      rowAttributes={(k) => ({ "data-key-id": k.keyId })}
      columns={[
        {
          label: "Key",
          cell: (k) => (
            <>
              {k.name ?? <span class="muted">unnamed</span>} <code class="muted">{k.keyId}</code>
              {k.keyId === currentKeyId && <strong class="this-key"> (this key: you are signed in with it)</strong>}
            </>
          ),
        },
        { label: "Scope", cell: (k) => k.scope },
        { label: "Test key", cell: (k) => (k.test ? "yes" : "no") },
        { label: "Expires", cell: (k) => (k.expiresAt ? `${formatTime(k.expiresAt)}${expired(k) ? " (expired)" : ""}` : "never") },
        { label: "Created", cell: (k) => formatTime(k.createdAt) },
        { label: "Last used", cell: (k) => (k.lastUsedAt ? formatTime(k.lastUsedAt) : "never") },
      ]}
      actions={
        onRevoke
          ? (k) =>
              k.keyId !== currentKeyId && (
                <button type="button" class="danger small" onClick={() => onRevoke(k)} aria-label={`Revoke key ${k.name ?? k.keyId}`}>
                  Revoke
                </button>
              )
          : undefined
      }
    />
  );
}
