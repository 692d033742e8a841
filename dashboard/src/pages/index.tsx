// Which page a path shows: the account's pages for an account key, the operator's (under /operator) for an
// operator key.
import { Link } from "../router.js";
import { AuditLog } from "./AuditLog.js";
import { Billing } from "./Billing.js";
import { CampaignDetail } from "./CampaignDetail.js";
import { Campaigns } from "./Campaigns.js";
import { Contacts } from "./contacts/index.js";
import { Conversation } from "./Conversation.js";
import { Inbox } from "./Inbox.js";
import { Keys } from "./Keys.js";
import { MessageDetail } from "./MessageDetail.js";
import { Messages } from "./Messages.js";
import { Numbers } from "./Numbers.js";
import { OperatorAccount } from "./operator/Account.js";
import { Accounts } from "./operator/Accounts.js";
import { Connectors } from "./operator/Connectors.js";
import { Routing } from "./operator/Routing.js";
import { PriceLists } from "./operator/PriceLists.js";
import { Unrouted } from "./operator/Unrouted.js";
import { OptOuts } from "./OptOuts.js";
import { Overview } from "./Overview.js";
import { Users } from "./people/Users.js";
import { YourSignIn } from "./people/YourSignIn.js";
import { Replies } from "./Replies.js";
import { SenderPools } from "./SenderPools.js";
import { Sending } from "./Sending.js";
import { Templates } from "./Templates.js";
import { Webhooks } from "./Webhooks.js";

/** A path segment as typed or linked (a phone's "+" arrives as %2B); a malformed escape stays as it is. */
function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function NotFound({ home, label }: { home: string; label: string }) {
  return (
    <section>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        There is no page here. <Link to={home}>Go to {label}</Link>.
      </p>
    </section>
  );
}

export function AccountPage({ path }: { path: string }) {
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "overview") return <Overview />;
  if (parts[0] === "messages" && parts[1]) return <MessageDetail messageId={parts[1]} />;
  if (parts[0] === "messages") return <Messages />;
  if (parts[0] === "contacts") return <Contacts />;
  if (parts[0] === "campaigns" && parts[1]) return <CampaignDetail campaignId={parts[1]} />;
  if (parts[0] === "campaigns") return <Campaigns />;
  if (parts[0] === "inbox") return <Inbox />;
  if (parts[0] === "conversations" && parts[1]) return <Conversation phone={decodePathPart(parts[1])} />;
  if (parts[0] === "audit-log") return <AuditLog />;
  if (parts[0] === "settings" && parts[1] === "numbers") return <Numbers />;
  if (parts[0] === "settings" && parts[1] === "opt-outs") return <OptOuts />;
  if (parts[0] === "settings" && parts[1] === "replies") return <Replies />;
  if (parts[0] === "settings" && parts[1] === "sending") return <Sending />;
  if (parts[0] === "settings" && parts[1] === "keys") return <Keys />;
  if (parts[0] === "settings" && parts[1] === "billing") return <Billing />;
  if (parts[0] === "settings" && parts[1] === "sender-pools") return <SenderPools />;
  if (parts[0] === "settings" && parts[1] === "users") return <Users />;
  if (parts[0] === "settings" && parts[1] === "templates") return <Templates />;
  if (parts[0] === "settings" && parts[1] === "your-sign-in") return <YourSignIn />;
  if (parts[0] === "settings") return <Webhooks />;
  return <NotFound home="/messages" label="messages" />;
}

export function OperatorPage({ path }: { path: string }) {
  const [, page, id] = path.split("/").filter(Boolean);
  if (page === "overview") return <Overview />;
  if (page === "accounts" && id) return <OperatorAccount accountId={id} />;
  if (page === "accounts") return <Accounts />;
  if (page === "unrouted-messages") return <Unrouted />;
  if (page === "connectors") return <Connectors />;
  if (page === "routing") return <Routing />;
  if (page === "price-lists") return <PriceLists />;
  if (page === "audit-log") return <AuditLog />;
  if (page === "users") return <Users />;
  if (page === "your-sign-in") return <YourSignIn />;
  return <NotFound home="/operator/accounts" label="the accounts" />;
}
