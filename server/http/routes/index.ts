// Every operation of the contract and its handler, keyed by operationId: a missing one fails the type check.
import { campaignHandlers } from "./campaigns.js";
import { contactHandlers } from "./contacts.js";
import { groupHandlers } from "./groups.js";
import { templateHandlers } from "./templates.js";
import { conversationHandlers } from "./conversations.js";
import { accountHandlers } from "./account.js";
import { optOutHandlers } from "./optOuts.js";
import { simulatorHandlers } from "./simulator.js";
import { numberHandlers } from "./numbers.js";
import { messageHandlers } from "./messages.js";
import { schedulerHandlers } from "./scheduler.js";
import { webhookHandlers } from "./webhooks.js";
import { keyHandlers } from "./keys.js";
import { routingHandlers } from "./routing.js";
import { senderPoolHandlers } from "./senderPools.js";
import { unroutedMessageHandlers } from "./unroutedMessages.js";
import { operatorAccountHandlers } from "./operatorAccounts.js";
import { auditEventHandlers } from "./auditEvents.js";
import { reportHandlers } from "./reports.js";
import { exportHandlers } from "./exports.js";
import { smppCredentialHandlers } from "./smppCredentials.js";
import { billingHandlers } from "./billing.js";
import { userHandlers } from "./users.js";
import type { Handlers } from "../types.js";

export const handlers: Handlers = {
  ...schedulerHandlers,
  ...smppCredentialHandlers,
  ...billingHandlers,
  ...userHandlers,
  ...messageHandlers,
  ...groupHandlers,
  ...templateHandlers,
  ...conversationHandlers,
  ...contactHandlers,
  ...campaignHandlers,
  ...webhookHandlers,
  ...numberHandlers,
  ...accountHandlers,
  ...optOutHandlers,
  ...simulatorHandlers,
  ...keyHandlers,
  ...unroutedMessageHandlers,
  ...operatorAccountHandlers,
  ...auditEventHandlers,
  ...reportHandlers,
  ...exportHandlers,
  ...routingHandlers,
  ...senderPoolHandlers,
};
