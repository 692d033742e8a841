// The groups panel of the Contacts page: the list with counts, create, rename, delete; and the group picker.
import { useState } from "preact/hooks";
import { ok, type Group } from "../../api.js";
import { bound, InputField, SubmitRow } from "../../forms.js";
import { ConfirmDialog, Loading, ProblemMessage, TitledForm, useAction, useSession, type Async } from "../../ui.js";

export function GroupSelect({
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

export function CreateGroupForm({ onCreated }: { onCreated: (g: Group) => void }) {
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
    <TitledForm titleId="new-group-title" title="New group" heading="h3" plain onSubmit={() => void action.run()}>
      <InputField id="group-name" label="Name" required maxLength={100} {...bound(name, setName, action.error, "/body/name")} />
      <InputField
        id="group-description"
        label="Description (optional)"
        maxLength={500}
        {...bound(description, setDescription, action.error, "/body/description")}
      />
      <SubmitRow action={action} failed="Group not created">
        Create group
      </SubmitRow>
    </TitledForm>
  );
}

export function GroupsPanel({
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
  const { client, canWrite } = useSession();
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
              {canWrite && (
                <button type="button" class="danger small" onClick={() => setDeleting(g)} aria-label={`Delete group ${g.name}`}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && <CreateGroupForm onCreated={onChanged} />}
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
