// A Settings page over the account's settings (GET /account): loads them, shows the page's form with them, and
// keeps what the form saved (PATCH /account/settings answers with every setting). A key that may not change
// settings sees them read-only (`summary`) instead of the form.
import type { ComponentChildren, FunctionComponent } from "preact";
import { ok, type Account, type AccountSettings } from "./api.js";
import { Loading, ProblemMessage, useAsync, useSession } from "./ui.js";

export interface SettingsFormProps {
  settings: AccountSettings;
  onSaved: (settings: AccountSettings) => void;
}

export function SettingsPage({
  title,
  intro,
  form: Form,
  summary: Summary,
  aside,
}: {
  title: string;
  intro: ComponentChildren;
  form: FunctionComponent<SettingsFormProps>;
  summary: FunctionComponent<{ settings: AccountSettings }>;
  /** More about the account, shown above the settings. */
  aside?: (account: Account) => ComponentChildren;
}) {
  const { client, canWrite } = useSession();
  const account = useAsync(() => ok(client.GET("/api/v1/account")), []);
  return (
    <section>
      <h1 tabIndex={-1}>{title}</h1>
      <p class="muted">{intro}</p>
      <ProblemMessage error={account.error} prefix="Could not load the settings" />
      {!account.data && account.loading && <Loading what="the settings" />}
      {account.data && aside?.(account.data)}
      {account.data &&
        (canWrite ? (
          <Form
            key={account.data.accountId}
            settings={account.data.settings}
            onSaved={(settings) => account.setData({ ...account.data!, settings })}
          />
        ) : (
          <section class="card" aria-labelledby="settings-summary-title">
            <h2 id="settings-summary-title">Current settings</h2>
            <p class="muted">Your key may not change them.</p>
            <Summary settings={account.data.settings} />
          </section>
        ))}
    </section>
  );
}
