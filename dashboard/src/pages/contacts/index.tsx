// Contacts and groups: list, create, edit, move between groups, delete (a group's contacts stay), CSV import.
import { useState } from "preact/hooks";
import { ok, type Contact } from "../../api.js";
import { PagedRows, usePagedList } from "../../paging.js";
import { navigate, useLocation } from "../../router.js";
import { ConfirmDialog, Notice, SearchInput, useAsync, useNotice, useSession } from "../../ui.js";
import { ContactItem, CreateContactForm } from "./contactForms.js";
import { GroupsPanel } from "./groups.js";
import { ImportForm } from "./importForm.js";
import { ExportButton } from "../../exports.js";
import { Options, SelectField } from "../../forms.js";

const LIMIT = 50;

export function Contacts() {
  const { client, canWrite } = useSession();
  const { query } = useLocation();
  const groupId = query.get("groupId") ?? "";
  const q = query.get("q") ?? "";
  const tag = query.get("tag") ?? "";
  const [notice, setNotice] = useNotice();
  const [deleting, setDeleting] = useState<Contact | undefined>();

  const groups = useAsync(async () => (await ok(client.GET("/api/v1/contacts/groups/all"))).data, []);
  const contacts = usePagedList<Contact>(
    async (page) =>
      ok(
        client.GET("/api/v1/contacts", {
          params: { query: { ...page, ...(groupId ? { groupId } : {}), ...(q ? { q } : {}), ...(tag ? { tag } : {}) } },
        }),
      ),
    [groupId, q, tag],
    LIMIT,
  );

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    const qs = next.toString();
    navigate(`/contacts${qs ? `?${qs}` : ""}`, { replace: true });
  };
  const select = (id: string) => setFilter("groupId", id);
  const refresh = () => Promise.all([groups.reload(), contacts.reload()]);
  const groupList = groups.data ?? [];
  const selectedGroup = groupList.find((g) => g.groupId === groupId);

  return (
    <section>
      <h1 tabIndex={-1}>Contacts &amp; groups</h1>
      {notice && <Notice>{notice}</Notice>}
      <div class="toolbar">
        <ExportButton path="/api/v1/exports/contacts" label="Export contacts (CSV)" />
      </div>
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
              <SelectField id="contacts-filter" label="Show" inline value={groupId} onValue={select}>
                <option value="">All contacts</option>
                <Options items={groupList} value={(g) => g.groupId} label={(g) => g.name} />
              </SelectField>
            </div>
            <search class="toolbar" aria-label="Search contacts">
              <SearchInput id="contacts-q" label="Name or number" value={q} onApply={(v) => setFilter("q", v)} maxLength={100} />
              <SearchInput id="contacts-tag" label="Tag" value={tag} onApply={(v) => setFilter("tag", v)} maxLength={50} />
            </search>
            <PagedRows
              list={contacts}
              noun="contacts"
              one="contact"
              empty={q || tag ? "No contacts match this search." : `No contacts${selectedGroup ? " in this group" : " yet"}.`}
            >
              {(items) => (
                <ul class="rows" aria-label="Contacts" ref={contacts.rowsRef}>
                  {items.map((c) => (
                    <ContactItem
                      key={c.contactId}
                      contact={c}
                      groups={groupList}
                      onDelete={setDeleting}
                      onChanged={(updated, note) => {
                        setNotice(note);
                        const stillHere = !groupId || updated.groupIds.includes(groupId);
                        contacts.update((items) =>
                          items.flatMap((x) => (x.contactId === updated.contactId ? (stillHere ? [updated] : []) : [x])),
                        );
                        void groups.reload();
                      }}
                    />
                  ))}
                </ul>
              )}
            </PagedRows>
          </section>
          {canWrite && (
            <>
              <CreateContactForm
                groups={groupList}
                defaultGroup={groupId}
                onCreated={(c) => {
                  setNotice(`Added ${c.phone}.`);
                  void refresh();
                }}
              />
              <ImportForm onImported={() => void refresh()} />
            </>
          )}
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
