// Contacts and groups: list, create, edit, move between groups, delete (a group's contacts stay), CSV import.
import { useEffect, useRef, useState } from "preact/hooks";
import { importContacts, ok, type Contact, type Group } from "../api.js";
import { importContactRows, type ImportOutcome } from "../contactImport.js";
import { contactsFromCsv, CsvError, type ContactRow } from "../csv.js";
import { LoadMore, usePagedList } from "../paging.js";
import { navigate, useLocation } from "../router.js";
import { TimeZoneInput } from "../timeZoneInput.js";
import { ConfirmDialog, Field, fieldError, Loading, Notice, ProblemMessage, useAction, useAsync, useSession, type Async } from "../ui.js";

const LIMIT = 50;

function GroupSelect({
  id,
  groups,
  value,
  onChange,
  label,
  disabled,
}: {
  id: string;
  groups: Group[];
  value: string;
  onChange: (v: string) => void;
  label?: string;
  disabled?: boolean;
}) {
  return (
    <select id={id} value={value} disabled={disabled} aria-label={label} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">No group</option>
      {groups.map((g) => (
        <option key={g.groupId} value={g.groupId}>
          {g.name}
        </option>
      ))}
    </select>
  );
}

function CreateGroupForm({ onCreated }: { onCreated: (g: Group) => void }) {
  const { client } = useSession();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const action = useAction(async () => {
    const group = await ok(client.POST("/api/v1/contacts/groups", { body: { name, ...(description ? { description } : {}) } }));
    setName("");
    setDescription("");
    onCreated(group);
  });
  return (
    <form
      aria-labelledby="new-group-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h3 id="new-group-title">New group</h3>
      <Field id="group-name" label="Name" error={fieldError(action.error, "/body/name")}>
        <input id="group-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="group-description" label="Description (optional)" error={fieldError(action.error, "/body/description")}>
        <input id="group-description" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <ProblemMessage error={action.error} prefix="Group not created" />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Create group
        </button>
      </div>
    </form>
  );
}

function GroupsPanel({
  groups,
  selected,
  onSelect,
  onChanged,
  onDeleted,
}: {
  groups: Async<Group[]>;
  selected: string;
  onSelect: (id: string) => void;
  onChanged: () => void;
  onDeleted: (g: Group) => void;
}) {
  const { client } = useSession();
  const [deleting, setDeleting] = useState<Group | undefined>();
  return (
    <aside class="card" aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <ProblemMessage error={groups.error} />
      {!groups.data && groups.loading && <Loading what="groups" />}
      {groups.data && groups.data.length === 0 && <p class="muted">No groups yet.</p>}
      {groups.data && groups.data.length > 0 && (
        <ul class="group-list" aria-label="Groups">
          <li>
            <button type="button" class="link" aria-pressed={selected === ""} onClick={() => onSelect("")}>
              All contacts
            </button>
          </li>
          {groups.data.map((g) => (
            <li key={g.groupId} data-group={g.name}>
              <button type="button" class="link" aria-pressed={selected === g.groupId} onClick={() => onSelect(g.groupId)}>
                {g.name}
              </button>{" "}
              <span class="muted count">
                {g.contactCount} contact{g.contactCount === 1 ? "" : "s"}
              </span>
              {g.description && <small class="muted block">{g.description}</small>}
              <button type="button" class="danger small" onClick={() => setDeleting(g)} aria-label={`Delete group ${g.name}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <CreateGroupForm onCreated={onChanged} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete group “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete group"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId: deleting!.groupId } } }));
          onDeleted(deleting!);
        }}
      >
        <p>
          {deleting?.contactCount === 1
            ? "Its 1 contact stays: it is kept, in no group."
            : `Its ${deleting?.contactCount ?? 0} contacts stay: they are kept, in no group.`}{" "}
          Campaigns already sent to the group are not affected.
        </p>
      </ConfirmDialog>
    </aside>
  );
}

function CreateContactForm({
  groups,
  defaultGroup,
  onCreated,
}: {
  groups: Group[];
  defaultGroup: string;
  onCreated: (c: Contact) => void;
}) {
  const { client } = useSession();
  const [phone, setPhone] = useState("");
  const [firstName, setFirstName] = useState("");
  const [zone, setZone] = useState("");
  const [groupId, setGroupId] = useState(defaultGroup);
  useEffect(() => setGroupId(defaultGroup), [defaultGroup]);
  const action = useAction(async () => {
    const contact = await ok(
      client.POST("/api/v1/contacts", {
        body: { phone, firstName: firstName || null, groupId: groupId || null, timeZone: zone.trim() || null },
      }),
    );
    setPhone("");
    setFirstName("");
    setZone("");
    onCreated(contact);
  });
  return (
    <form
      class="card"
      aria-labelledby="new-contact-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="new-contact-title">Add a contact</h2>
      <div class="grid-3">
        <Field id="contact-phone" label="Phone" error={fieldError(action.error, "/body/phone")}>
          <input id="contact-phone" type="tel" required value={phone} onInput={(e) => setPhone(e.currentTarget.value)} />
        </Field>
        <Field id="contact-first-name" label="First name" error={fieldError(action.error, "/body/firstName")}>
          <input id="contact-first-name" maxLength={100} value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
        </Field>
        <Field id="contact-group" label="Group" error={fieldError(action.error, "/body/groupId")}>
          <GroupSelect id="contact-group" groups={groups} value={groupId} onChange={setGroupId} />
        </Field>
      </div>
      <Field
        id="contact-zone"
        label="Time zone (optional)"
        hint="For quiet hours; without it the number's zone, else the account's default, is used."
        error={fieldError(action.error, "/body/timeZone")}
      >
        <TimeZoneInput id="contact-zone" value={zone} onInput={setZone} describedBy="contact-zone-hint" />
      </Field>
      <ProblemMessage error={action.error} prefix="Contact not added" />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Add contact
        </button>
      </div>
    </form>
  );
}

function ImportForm({ onImported }: { onImported: () => void }) {
  const { client } = useSession();
  const [parsed, setParsed] = useState<{ name: string; rows: ContactRow[]; header: boolean } | undefined>();
  const [parseError, setParseError] = useState<string | undefined>();
  const [result, setResult] = useState<ImportOutcome | undefined>();
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
      const { rows, header } = contactsFromCsv(await file.text());
      if (rows.length === 0) setParseError(`${file.name} has no rows.`);
      else setParsed({ name: file.name, rows, header });
    } catch (error) {
      setParseError(
        error instanceof CsvError ? `${file.name}, ${error.message}.` : `${file.name} could not be read: ${(error as Error).message}`,
      );
    }
  };

  return (
    <form
      class="card"
      aria-labelledby="import-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (parsed) void action.run();
      }}
    >
      <h2 id="import-title">Import contacts from CSV</h2>
      <Field
        id="import-file"
        label="CSV file"
        hint={
          <>
            Columns <code>phone,firstName,group</code> (group optional: an existing group's name or id), one contact a line. A header line
            is optional. Valid rows are imported even when others fail.
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
    </form>
  );
}

function ContactItem({
  contact,
  groups,
  onChanged,
  onDelete,
}: {
  contact: Contact;
  groups: Group[];
  onChanged: (c: Contact, note: string) => void;
  onDelete: (c: Contact) => void;
}) {
  const { client } = useSession();
  const [editing, setEditing] = useState(false);
  const [phone, setPhone] = useState(contact.phone);
  const [firstName, setFirstName] = useState(contact.firstName ?? "");
  const [zone, setZone] = useState(contact.timeZone ?? "");
  const save = useAction(
    async (
      changes: { phone?: string; firstName?: string | null; groupId?: string | null; timeZone?: string | null },
      note: (c: Contact) => string,
    ) => {
      const updated = await ok(
        client.PATCH("/api/v1/contacts/{contactId}", { params: { path: { contactId: contact.contactId } }, body: changes }),
      );
      setEditing(false);
      onChanged(updated, note(updated));
    },
  );
  const groupName = (id: string | null) => groups.find((g) => g.groupId === id)?.name ?? "no group";
  const editId = `edit-${contact.contactId}`;
  const phoneInput = useRef<HTMLInputElement>(null);
  // The Edit button that had the focus is gone: the form's first field takes it.
  useEffect(() => {
    if (editing) phoneInput.current?.focus();
  }, [editing]);

  if (editing) {
    return (
      <li class="row">
        <form
          class="row-edit"
          aria-label={`Edit ${contact.phone}`}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
          onSubmit={(e) => {
            e.preventDefault();
            void save.run({ phone, firstName: firstName || null, timeZone: zone.trim() || null }, (c) => `Saved ${c.phone}.`);
          }}
        >
          <Field id={`${editId}-phone`} label="Phone" error={fieldError(save.error, "/body/phone")}>
            <input
              id={`${editId}-phone`}
              type="tel"
              required
              value={phone}
              onInput={(e) => setPhone(e.currentTarget.value)}
              ref={phoneInput}
            />
          </Field>
          <Field id={`${editId}-first`} label="First name" error={fieldError(save.error, "/body/firstName")}>
            <input id={`${editId}-first`} maxLength={100} value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
          </Field>
          <Field id={`${editId}-zone`} label="Time zone" error={fieldError(save.error, "/body/timeZone")}>
            <TimeZoneInput id={`${editId}-zone`} value={zone} onInput={setZone} />
          </Field>
          <ProblemMessage error={save.error} prefix="Not saved" />
          <div class="actions">
            <button type="submit" class="primary" disabled={save.busy}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li class="row" data-phone={contact.phone}>
      <div class="row-main">
        <span class="row-title">{contact.phone}</span>
        <span>{contact.firstName ?? <span class="muted">no first name</span>}</span>
        {contact.timeZone && <small class="muted">{contact.timeZone}</small>}
      </div>
      <div class="row-meta">
        <label class="inline" for={`group-of-${contact.contactId}`}>
          <span class="muted">Group</span>
          <GroupSelect
            id={`group-of-${contact.contactId}`}
            groups={groups}
            value={contact.groupId ?? ""}
            label={`Group of ${contact.phone}`}
            disabled={save.busy}
            onChange={(groupId) => {
              const target = groupId || null;
              void save.run({ groupId: target }, (c) => `Moved ${c.phone} to ${groupName(target)}.`);
            }}
          />
        </label>
        <ProblemMessage error={save.error} />
      </div>
      <div class="row-actions">
        <button
          type="button"
          onClick={() => {
            setPhone(contact.phone);
            setFirstName(contact.firstName ?? "");
            setZone(contact.timeZone ?? "");
            save.clearError();
            setEditing(true);
          }}
          aria-label={`Edit ${contact.phone}`}
        >
          Edit
        </button>
        <button type="button" class="danger" onClick={() => onDelete(contact)} aria-label={`Delete ${contact.phone}`}>
          Delete
        </button>
      </div>
    </li>
  );
}

export function Contacts() {
  const { client } = useSession();
  const { query } = useLocation();
  const groupId = query.get("groupId") ?? "";
  const [notice, setNotice] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<Contact | undefined>();

  const groups = useAsync(async () => (await ok(client.GET("/api/v1/contacts/groups/all"))).data, []);
  const contacts = usePagedList<Contact>(
    async (page) => ok(client.GET("/api/v1/contacts", { params: { query: { ...page, ...(groupId ? { groupId } : {}) } } })),
    [groupId],
    LIMIT,
  );

  const select = (id: string) => navigate(`/contacts${id ? `?groupId=${id}` : ""}`, { replace: true });
  const refresh = () => Promise.all([groups.reload(), contacts.reload()]);
  const groupList = groups.data ?? [];
  const selectedGroup = groupList.find((g) => g.groupId === groupId);

  return (
    <section>
      <h1 tabIndex={-1}>Contacts &amp; groups</h1>
      {notice && <Notice>{notice}</Notice>}
      <div class="split">
        <GroupsPanel
          groups={groups}
          selected={groupId}
          onSelect={select}
          onChanged={() => void groups.reload()}
          onDeleted={(g) => {
            setNotice(
              `Group “${g.name}” deleted. Its ${g.contactCount} contact${g.contactCount === 1 ? " was" : "s were"} kept and ${g.contactCount === 1 ? "is" : "are"} now in no group.`,
            );
            if (groupId === g.groupId) select("");
            void refresh();
          }}
        />
        <div class="stack">
          <section class="card" aria-labelledby="contacts-title">
            <div class="card-head">
              <h2 id="contacts-title">{selectedGroup ? `Contacts in ${selectedGroup.name}` : "All contacts"}</h2>
              <div class="field inline">
                <label for="contacts-filter">Show</label>
                <select id="contacts-filter" value={groupId} onChange={(e) => select(e.currentTarget.value)}>
                  <option value="">All contacts</option>
                  {groupList.map((g) => (
                    <option key={g.groupId} value={g.groupId}>
                      {g.name}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <ProblemMessage error={contacts.error} />
            {!contacts.items && contacts.loading && <Loading what="contacts" />}
            {contacts.items?.length === 0 && <p class="muted">No contacts{selectedGroup ? " in this group" : " yet"}.</p>}
            {contacts.items && contacts.items.length > 0 && (
              <ul class="rows" aria-label="Contacts" ref={contacts.rowsRef}>
                {contacts.items.map((c) => (
                  <ContactItem
                    key={c.contactId}
                    contact={c}
                    groups={groupList}
                    onDelete={setDeleting}
                    onChanged={(updated, note) => {
                      setNotice(note);
                      const stillHere = !groupId || updated.groupId === groupId;
                      contacts.update((items) =>
                        items.flatMap((x) => (x.contactId === updated.contactId ? (stillHere ? [updated] : []) : [x])),
                      );
                      void groups.reload();
                    }}
                  />
                ))}
              </ul>
            )}
            <LoadMore list={contacts} noun="contacts" one="contact" />
          </section>
          <CreateContactForm
            groups={groupList}
            defaultGroup={groupId}
            onCreated={(c) => {
              setNotice(`Added ${c.phone}.`);
              void refresh();
            }}
          />
          <ImportForm onImported={() => void refresh()} />
        </div>
      </div>
      <ConfirmDialog
        open={!!deleting}
        title={`Delete contact ${deleting?.phone ?? ""}?`}
        confirmLabel="Delete contact"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/contacts/{contactId}", { params: { path: { contactId: deleting!.contactId } } }));
          setNotice(`Deleted ${deleting!.phone}.`);
          void refresh();
        }}
      >
        <p>Messages already sent to this number are kept.</p>
      </ConfirmDialog>
    </section>
  );
}
