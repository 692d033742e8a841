// Operator → one account → People: the operator invites a person to the account with any role, typically its
// first owner (POST /accounts/{accountId}/users/invite); the link is shown this once, and mailed where the
// server sends mail. The account's own owners and admins invite everyone after that, at Settings → Users.
import { useState } from "preact/hooks";
import { ok, type AccountRole, type Invitation } from "../../api.js";
import { useSession, ToggledPanel } from "../../ui.js";
import { InviteForm, NewInvitation, ROLES } from "../people/Users.js";

export function AccountPeople({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const [inviting, setInviting] = useState(false);
  const [invitation, setInvitation] = useState<Invitation | undefined>();
  return (
    <section class="card" aria-labelledby="account-people-title">
      <h2 id="account-people-title">People</h2>
      <p class="muted">
        Invite the account's first owner here; its owners and admins then invite everyone else from their own Settings → Users.
      </p>
      <ToggledPanel label="Invite a person" id="account-invite-panel" open={inviting} onToggle={setInviting}>
        <InviteForm
          roles={ROLES}
          defaultRole="owner"
          title="Invite a person to this account"
          onInvite={async (email, role) => {
            setInvitation(
              await ok(
                client.POST("/api/v1/accounts/{accountId}/users/invite", {
                  params: { path: { accountId } },
                  body: { email, role: role as AccountRole },
                }),
              ),
            );
            setInviting(false);
          }}
        />
      </ToggledPanel>
      {invitation && <NewInvitation invitation={invitation} onDone={() => setInvitation(undefined)} />}
    </section>
  );
}
