// Settings → Users (an account's people) and the operator's Users (operator users): the list, and for those who
// manage users (an owner or admin, the operator, a `full` key) inviting someone (the link shown this once),
// changing a role and removing a user (the operator removes operator users, never itself here). The account's owner also decides whether everyone must sign in with a
// second factor, as the operator does of operator users. Everyone else sees the list alone.
import { useState } from "preact/hooks";
import { ok, type AccountRole, type Invitation, type OperatorRole, type User, type UserRole } from "../../api.js";
import { formatTime } from "../../time.js";
import { bound, InputField, Options, SelectField, SubmitRow } from "../../forms.js";
import {
  ConfirmDialog,
  Loading,
  Notice,
  ProblemMessage,
  ShownOnce,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  useSession,
  ToggledPanel,
} from "../../ui.js";

export const ROLES: { role: AccountRole; label: string }[] = [
  { role: "owner", label: "owner: everything, and manages every user" },
  { role: "admin", label: "admin: everything, and manages users other than owners" },
  { role: "developer", label: "developer: everything but users" },
  { role: "viewer", label: "viewer: looks only" },
];

/** The roles of operator users. */
const OPERATOR_ROLES: { role: OperatorRole; label: string }[] = [
  { role: "operator", label: "operator: everything the operator console does" },
  { role: "auditor", label: "auditor: looks only" },
];

export function Users() {
  const { client, key, canManageUsers } = useSession();
  const operator = key.kind === "operator";
  const me = key.user;
  const [inviting, setInviting] = useState(false);
  const [invitation, setInvitation] = useState<Invitation | undefined>();
  const [removing, setRemoving] = useState<User | undefined>();
  const [notice, setNotice] = useNotice();
  const list = useAsync(async () => (operator ? ok(client.GET("/api/v1/operator-users")) : ok(client.GET("/api/v1/users"))), []);
  const users = list.data?.data;
  const owners = users?.filter((u) => u.role === "owner").length ?? 0;
  /** Roles the signed-in person may give or take: only an owner touches owners (a key acts as an admin). */
  const mayManage = (role: UserRole) => canManageUsers && (role !== "owner" || me?.role === "owner");
  return (
    <section>
      <h1 tabIndex={-1}>{operator ? "Operator users" : "Settings → Users"}</h1>
      <p class="muted">
        {operator
          ? "The people who sign in to the operator console. Programs use operator keys instead."
          : "The people who sign in to this account, each with a role. Programs use API keys instead (Settings → API keys)."}
      </p>
      {canManageUsers && (
        <>
          <ToggledPanel label="Invite someone" id="invite-panel" open={inviting} onToggle={setInviting}>
            <InviteForm
              roles={operator ? OPERATOR_ROLES : ROLES.filter((r) => mayManage(r.role))}
              defaultRole={operator ? "operator" : "developer"}
              onInvite={async (email, role) => {
                setNotice(undefined);
                setInvitation(
                  operator
                    ? await ok(client.POST("/api/v1/operator-users/invite", { body: { email, role: role as OperatorRole } }))
                    : await ok(client.POST("/api/v1/users/invite", { body: { email, role: role as AccountRole } })),
                );
                await list.reload();
              }}
            />
          </ToggledPanel>
        </>
      )}
      {invitation && <NewInvitation invitation={invitation} onDone={() => setInvitation(undefined)} />}
      {notice && <Notice>{notice}</Notice>}
      {list.data && <TwoFactorRequirement required={list.data.twoFactorRequired} onChange={() => void list.reload()} />}
      <section class="card" aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        {list.loading && !users && <Loading what="users" />}
        <ProblemMessage error={list.error} prefix="Could not load the users" />
        {users && users.length === 0 && <p class="muted">Nobody yet: invite someone.</p>}
        {users && users.length > 0 && (
          <table>
            <caption class="sr-only">{operator ? "Operator users, oldest first" : "The account's users, oldest first"}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Two-factor</th>
                <th scope="col">Last sign-in</th>
                {canManageUsers && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.userId} data-user={u.email}>
                  <td>
                    {u.email}
                    {u.userId === me?.userId && <span class="muted"> (you)</span>}
                  </td>
                  <td>
                    {canManageUsers && (operator ? u.userId !== me?.userId : mayManage(u.role) && !(u.role === "owner" && owners <= 1)) ? (
                      <RoleSelect
                        user={u}
                        roles={operator ? OPERATOR_ROLES : ROLES.filter((r) => mayManage(r.role))}
                        onChanged={(msg) => {
                          setNotice(msg);
                          void list.reload();
                        }}
                      />
                    ) : (
                      u.role
                    )}
                  </td>
                  <td>{u.status}</td>
                  <td>{u.twoFactor ? "on" : "off"}</td>
                  <td>{u.lastSignInAt ? formatTime(u.lastSignInAt) : "never"}</td>
                  {canManageUsers && (
                    <td>
                      {(operator ? u.userId !== me?.userId : mayManage(u.role) && !(u.role === "owner" && owners <= 1)) && (
                        <button type="button" class="danger" onClick={() => setRemoving(u)} aria-label={`Remove ${u.email}`}>
                          Remove
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <ConfirmDialog
        open={!!removing}
        title={`Remove ${removing?.email ?? ""}?`}
        confirmLabel="Remove user"
        danger
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          const path = { userId: removing!.userId };
          await ok(
            operator
              ? client.DELETE("/api/v1/operator-users/{userId}", { params: { path } })
              : client.DELETE("/api/v1/users/{userId}", { params: { path } }),
          );
          setNotice(`${removing!.email} removed: their sessions have ended and the keys they made are revoked.`);
          await list.reload();
        }}
      >
        <p>They are signed out everywhere and can no longer sign in. Invite them again to give them access back.</p>
      </ConfirmDialog>
    </section>
  );
}

export function InviteForm({
  roles,
  defaultRole,
  title = "Invite someone",
  onInvite,
}: {
  roles: { role: UserRole; label: string }[];
  defaultRole: UserRole;
  title?: string;
  onInvite: (email: string, role: UserRole) => Promise<void>;
}) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<UserRole>(defaultRole);
  const invite = useAction(async () => {
    await onInvite(email.trim(), role);
    setEmail("");
  });
  return (
    <TitledForm titleId="invite-title" title={title} onSubmit={() => void invite.run()}>
      <div class="grid-2">
        <InputField
          id="invite-email"
          label="Email address"
          type="email"
          required
          {...bound(email, setEmail, invite.error, "/body/email")}
        />
        {roles.length > 1 && (
          <SelectField id="invite-role" label="Role" value={role} onValue={setRole}>
            <Options items={roles} value={(r) => r.role} label={(r) => r.label} />
          </SelectField>
        )}
      </div>
      <SubmitRow action={invite} busy="Inviting…">
        {"Invite"}
      </SubmitRow>
    </TitledForm>
  );
}

/** The invitation's link, shown this once (it is also mailed when the server sends mail). */
export function NewInvitation({ invitation, onDone }: { invitation: Invitation; onDone: () => void }) {
  return (
    <ShownOnce
      id="invitation"
      title={`Invitation for ${invitation.email}`}
      label="Invitation link"
      value={invitation.inviteUrl}
      noun="Link"
      doneLabel="Done"
      onDone={onDone}
    >
      <p>
        <strong>
          {invitation.mailed
            ? `Mailed to ${invitation.email}; the link is shown here this once too.`
            : `Send this link to ${invitation.email} now: it is shown this once.`}
        </strong>{" "}
        It sets their password and works once, until {formatTime(invitation.expiresAt)}.
      </p>
    </ShownOnce>
  );
}

function RoleSelect({ user, roles, onChanged }: { user: User; roles: { role: UserRole }[]; onChanged: (message: string) => void }) {
  const { client } = useSession();
  const change = useAction(async (role: UserRole) => {
    const path = { params: { path: { userId: user.userId } } };
    await ok(
      user.accountId === null
        ? client.PATCH("/api/v1/operator-users/{userId}", { ...path, body: { role: role as OperatorRole } })
        : client.PATCH("/api/v1/users/{userId}", { ...path, body: { role: role as AccountRole } }),
    );
    onChanged(`${user.email} is now ${role}.`);
  });
  return (
    <>
      <select
        aria-label={`Role of ${user.email}`}
        value={user.role}
        disabled={change.busy}
        onChange={(e) => void change.run(e.currentTarget.value as UserRole)}
      >
        <Options items={roles} value={(r) => r.role} label={(r) => r.role} />
      </select>
      <ProblemMessage error={change.error} />
    </>
  );
}

/** Whether everyone must sign in with a second factor: shown to all, changed by an owner signed in. */
function TwoFactorRequirement({ required, onChange }: { required: boolean; onChange: () => void }) {
  const { client, key, canManageUsers } = useSession();
  const operator = key.kind === "operator";
  // An account's owner decides it for the account; the operator (a key or an operator user, not an auditor) for
  // operator users.
  const decides = operator ? canManageUsers : key.user?.role === "owner";
  const save = useAction(async (on: boolean) => {
    const body = { required: on };
    await ok(
      operator
        ? client.PUT("/api/v1/operator-users/two-factor-requirement", { body })
        : client.PUT("/api/v1/users/two-factor-requirement", { body }),
    );
    onChange();
  });
  return (
    <section class="card" aria-labelledby="require-2fa-title">
      <h2 id="require-2fa-title">Two-factor sign-in</h2>
      <p>
        {required
          ? "Required: everyone signs in with an authenticator app. Someone without one can do nothing but turn it on."
          : "Not required: each person chooses (Your sign-in)."}
      </p>
      {decides && (
        <>
          <button type="button" disabled={save.busy} onClick={() => void save.run(!required)}>
            {required ? "Stop requiring two-factor sign-in" : "Require two-factor sign-in for everyone"}
          </button>
          <ProblemMessage error={save.error} />
        </>
      )}
    </section>
  );
}
