// A Settings page over the account's settings (GET /account): loads them, shows the page's form with them, and
// keeps what the form saved (PATCH /account/settings answers with every setting).
import type { ComponentChildren, FunctionComponent } from "preact";
import { ok, type AccountSettings } from "./api.js";
import { Loading, ProblemMessage, useAsync, useSession } from "./ui.js";

export interface SettingsFormProps {
  settings: AccountSettings;
  onSaved: (settings: AccountSettings) => void;
}

export function SettingsPage({
  title,
  intro,
  form: Form,
}: {
  title: string;
  intro: ComponentChildren;
  form: FunctionComponent<SettingsFormProps>;
}) {
  const { client } = useSession();
  const account = useAsync(() => ok(client.GET("/api/v1/account")), []);
  return (
    <section>
      <h1 tabIndex={-1}>{title}</h1>
      <p class="muted">{intro}</p>
      <ProblemMessage error={account.error} prefix="Could not load the settings" />
      {!account.data && account.loading && <Loading what="the settings" />}
      {account.data && (
        <Form
          key={account.data.accountId}
          settings={account.data.settings}
          onSaved={(settings) => account.setData({ ...account.data!, settings })}
        />
      )}
    </section>
  );
}
