// A contact on the Contacts page: the row with its inline edit, and the form that adds one.
import { useEffect, useRef, useState } from "preact/hooks";
import { ok, type Contact, type Group } from "../../api.js";
import { TimeZoneInput } from "../../timeZoneInput.js";
import { bound, fieldsOf, InputField, SubmitRow, TextAreaField } from "../../forms.js";
import { Field, fieldError, ProblemMessage, TitledForm, useAction, useSession } from "../../ui.js";
import { GroupSelect } from "./groups.js";
import { formatCustomFields, formatTags, fullName, keyValueProblem, parseCustomFields, parseTags } from "./details.js";

interface Details {
  lastName: string;
  tags: string;
  /** The custom fields, one key=value a line. */
  fields: string;
}

const NO_DETAILS: Details = { lastName: "", tags: "", fields: "" };
const detailsOf = (c: Contact): Details => ({
  lastName: c.lastName ?? "",
  tags: formatTags(c.tags),
  fields: formatCustomFields(c.customFields),
});

/** The state of a contact's DetailFields, and the check of its custom fields on submit. */
function useDetails(initial: Details) {
  const [details, setDetails] = useState(initial);
  /** A line of the custom fields that is no key=value (keyValueProblem), found on submit. */
  const [fieldsProblem, setFieldsProblem] = useState<string | undefined>();
  const onChange = (next: Details) => {
    if (next.fields !== details.fields) setFieldsProblem(undefined);
    setDetails(next);
  };
  /** Whether the custom fields are all key=value; if not, says which line is not and focuses them. */
  const valid = (id: string) => {
    const problem = keyValueProblem(details.fields);
    setFieldsProblem(problem);
    if (problem) document.getElementById(`${id}-fields`)?.focus();
    return !problem;
  };
  const body = () => ({
    lastName: details.lastName || null,
    tags: parseTags(details.tags),
    customFields: parseCustomFields(details.fields),
  });
  return { props: { details, fieldsProblem, onChange }, valid, body, reset: (to: Details = NO_DETAILS) => setDetails(to) };
}

/** The fields a contact's forms share beyond phone, first name and zone: last name, tags, custom fields. */
function DetailFields({
  id,
  error,
  details,
  fieldsProblem,
  onChange,
}: {
  id: string;
  error: Parameters<typeof fieldError>[0];
} & ReturnType<typeof useDetails>["props"]) {
  const field = fieldsOf(details, onChange, error);
  return (
    <>
      <InputField id={`${id}-last`} label="Last name" maxLength={100} {...field("lastName")} />
      <InputField id={`${id}-tags`} label="Tags" hint="Comma-separated, up to 20" {...field("tags")} />
      <TextAreaField
        id={`${id}-fields`}
        label="Custom fields"
        hint="One key=value a line, e.g. plan=gold; {{custom.plan}} in a campaign"
        rows={2}
        {...field("fields", "/body/customFields")}
        error={fieldsProblem ?? fieldError(error, "/body/customFields")}
      />
    </>
  );
}

export function CreateContactForm({
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
  const details = useDetails(NO_DETAILS);
  const [zone, setZone] = useState("");
  const [groupId, setGroupId] = useState(defaultGroup);
  useEffect(() => setGroupId(defaultGroup), [defaultGroup]);
  const action = useAction(async () => {
    const contact = await ok(
      client.POST("/api/v1/contacts", {
        body: {
          phone,
          firstName: firstName || null,
          ...details.body(),
          groupId: groupId || null,
          timeZone: zone.trim() || null,
        },
      }),
    );
    setPhone("");
    setFirstName("");
    details.reset();
    setZone("");
    onCreated(contact);
  });
  return (
    <TitledForm
      titleId="new-contact-title"
      title="Add a contact"
      onSubmit={() => {
        if (details.valid("contact")) void action.run();
      }}
    >
      <div class="grid-3">
        <InputField id="contact-phone" label="Phone" type="tel" required {...bound(phone, setPhone, action.error, "/body/phone")} />
        <InputField
          id="contact-first-name"
          label="First name"
          maxLength={100}
          {...bound(firstName, setFirstName, action.error, "/body/firstName")}
        />
        <Field id="contact-group" label="Group" error={fieldError(action.error, "/body/groupId")}>
          <GroupSelect id="contact-group" groups={groups} value={groupId} onChange={setGroupId} />
        </Field>
        <DetailFields id="contact" error={action.error} {...details.props} />
      </div>
      <Field
        id="contact-zone"
        label="Time zone (optional)"
        hint="For quiet hours; without it the number's zone, else the account's default, is used."
        error={fieldError(action.error, "/body/timeZone")}
      >
        <TimeZoneInput id="contact-zone" value={zone} onInput={setZone} describedBy="contact-zone-hint" />
      </Field>
      <SubmitRow action={action} failed="Contact not added">
        Add contact
      </SubmitRow>
    </TitledForm>
  );
}

export function ContactItem({
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
  const { client, canWrite } = useSession();
  const [editing, setEditing] = useState(false);
  const [phone, setPhone] = useState(contact.phone);
  const [firstName, setFirstName] = useState(contact.firstName ?? "");
  const details = useDetails(detailsOf(contact));
  const [zone, setZone] = useState(contact.timeZone ?? "");
  const [memberOf, setMemberOf] = useState(contact.groupIds);
  const save = useAction(
    async (
      changes: {
        phone?: string;
        firstName?: string | null;
        lastName?: string | null;
        tags?: string[];
        customFields?: Record<string, string>;
        groupId?: string | null;
        groupIds?: string[];
        timeZone?: string | null;
      },
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
  const groupNames = contact.groupIds.map(groupName).join(", ");
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
            if (!details.valid(editId)) return;
            void save.run(
              {
                phone,
                firstName: firstName || null,
                ...details.body(),
                groupIds: memberOf,
                timeZone: zone.trim() || null,
              },
              (c) => `Saved ${c.phone}.`,
            );
          }}
        >
          <InputField
            id={`${editId}-phone`}
            label="Phone"
            type="tel"
            required
            ref={phoneInput}
            {...bound(phone, setPhone, save.error, "/body/phone")}
          />
          <InputField
            id={`${editId}-first`}
            label="First name"
            maxLength={100}
            {...bound(firstName, setFirstName, save.error, "/body/firstName")}
          />
          <DetailFields id={editId} error={save.error} {...details.props} />
          <Field id={`${editId}-zone`} label="Time zone" error={fieldError(save.error, "/body/timeZone")}>
            <TimeZoneInput id={`${editId}-zone`} value={zone} onInput={setZone} />
          </Field>
          {groups.length > 0 && (
            <fieldset class="checkboxes">
              <legend>Groups</legend>
              {groups.map((g) => (
                <label key={g.groupId} class="inline">
                  <input
                    type="checkbox"
                    checked={memberOf.includes(g.groupId)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      // Kept in their order, a new one last: the first stays the contact's groupId.
                      setMemberOf((ids) => (on ? [...ids, g.groupId] : ids.filter((id) => id !== g.groupId)));
                    }}
                  />
                  {g.name}
                </label>
              ))}
            </fieldset>
          )}
          <SubmitRow
            action={save}
            failed="Not saved"
            more={
              <>
                <button type="button" onClick={() => setEditing(false)}>
                  Cancel
                </button>
              </>
            }
          >
            Save
          </SubmitRow>
        </form>
      </li>
    );
  }
  return (
    <li class="row" data-phone={contact.phone}>
      <div class="row-main">
        <span class="row-title">{contact.phone}</span>
        <span>{fullName(contact) ?? <span class="muted">no name</span>}</span>
        {contact.optedOut && <span class="chip chip-failed">opted out</span>}
        {contact.tags.map((t) => (
          <span key={t} class="chip">
            {t}
          </span>
        ))}
        {contact.timeZone && <small class="muted">{contact.timeZone}</small>}
        {Object.keys(contact.customFields).length > 0 && (
          <small class="muted">
            {Object.entries(contact.customFields)
              .map(([k, v]) => `${k}: ${v}`)
              .join(" · ")}
          </small>
        )}
      </div>
      <div class="row-meta">
        {(!canWrite || contact.groupIds.length > 1) && (
          <span data-testid="contact-groups">
            {contact.groupIds.length > 1 ? `Groups: ${groupNames}` : `Group: ${groupName(contact.groupId)}`}
          </span>
        )}
        {canWrite && contact.groupIds.length <= 1 && (
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
        )}
        <ProblemMessage error={save.error} />
      </div>
      {canWrite && (
        <div class="row-actions">
          <button
            type="button"
            onClick={() => {
              setPhone(contact.phone);
              setFirstName(contact.firstName ?? "");
              details.reset(detailsOf(contact));
              setZone(contact.timeZone ?? "");
              setMemberOf(contact.groupIds);
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
      )}
    </li>
  );
}
