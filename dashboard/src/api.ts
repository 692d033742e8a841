// The dashboard's one door to the API: the generated, typed client (client/http.ts), with the key from the
// sign-in, and the problem documents the API answers turned into errors the pages can show.
import { createSmsClient, type components, type SmsClient } from "../../client/http.js";

export type Schemas = components["schemas"];
export type Message = Schemas["Message"];
export type MessageStatus = Schemas["MessageStatus"];
export type Group = Schemas["Group"];
export type Contact = Schemas["Contact"];
export type Campaign = Schemas["Campaign"];
export type Webhook = Schemas["Webhook"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type Problem = Schemas["Problem"];
export type InboundMessage = Schemas["InboundMessage"];
export type ConversationThread = Schemas["Conversation"];
export type PhoneNumber = Schemas["PhoneNumberResource"];
export type OptOut = Schemas["OptOut"];
export type AccountSettings = Schemas["AccountSettings"];
export type WebhookEventType = Schemas["WebhookEventType"];
export type KeyInfo = Schemas["ApiKeyInfo"];
export type KeyScope = Schemas["ApiKeyScope"];
export type KeySummary = Schemas["ApiKeySummary"];
export type CreatedKey = Schemas["CreatedApiKey"];
export type NewKeyRequest = Schemas["CreateApiKeyRequest"];
export type Account = Schemas["Account"];
export type AccountLimits = Schemas["AccountLimits"];
export type AccountUsage = Schemas["AccountUsage"];
export type OperatorAccount = Schemas["OperatorAccount"];
export type AuditEvent = Schemas["AuditEvent"];
export type UnroutedMessage = Schemas["UnroutedMessage"];
export type SessionInfo = Schemas["SessionInfo"];
export type SessionSummary = Schemas["SessionSummary"];
export type User = Schemas["User"];
export type UserRole = Schemas["UserRole"];
/** The roles of operator users: `operator` changes everything, `auditor` reads only. */
export type OperatorRole = "operator" | "auditor";
export type AccountRole = Exclude<UserRole, OperatorRole>;
export const isOperatorRole = (role: UserRole): role is OperatorRole => role === "operator" || role === "auditor";
export type Invitation = Schemas["Invitation"];

/** Every event a webhook can subscribe to, with what it is for (the create and edit forms offer these). */
export const WEBHOOK_EVENTS: { event: WebhookEventType; label: string }[] = [
  { event: "dlr.sent", label: "Sent" },
  { event: "dlr.delivered", label: "Delivered" },
  { event: "dlr.failed", label: "Failed" },
  { event: "dlr.undelivered", label: "Undelivered" },
  { event: "message.received", label: "Message received" },
  { event: "contact.opted_out", label: "Contact opted out" },
  { event: "contact.opted_in", label: "Contact opted in" },
];
/** What a webhook gets when none are chosen: the four receipts. */
export const RECEIPT_EVENTS: WebhookEventType[] = ["dlr.sent", "dlr.delivered", "dlr.failed", "dlr.undelivered"];

export const MESSAGE_STATUSES: MessageStatus[] = ["scheduled", "sent", "delivered", "failed", "undelivered", "cancelled"];

/** An answer of the API that is not a success: its problem document (RFC 9457), or one made up for it. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Pick<Problem, "detail" | "code"> & Partial<Problem>,
    /** From a 429's Retry-After header: when the key's rate limit lets it try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(problem.detail);
  }
}

let onUnauthorized: (problem: ApiProblem) => void = () => {};
/** Called when the API answers 401 to a signed-in request: the key was revoked, or the session ended. */
export function setUnauthorizedHandler(handler: (problem: ApiProblem) => void): void {
  onUnauthorized = handler;
}

/**
 * How the dashboard's requests say who makes them: a person's session (the HttpOnly cookie, which the browser
 * sends by itself, and its CSRF token on every change), or an API key (the development sign-in).
 */
export type Credentials = { apiKey: string } | { csrfToken: string };

/** A client for `credentials`; a 401 to it calls the unauthorized handler unless `handle401` is false. */
export function createClient(credentials: Credentials | null, handle401 = true): SmsClient {
  const client = createSmsClient({ baseUrl: location.origin, ...credentials });
  client.use({
    onResponse({ response }) {
      if (handle401 && response.status === 401) {
        const detail =
          credentials && "apiKey" in credentials
            ? "The API key is no longer accepted (revoked or changed). Sign in again."
            : "Your session has ended (signed out, or unused for 12 hours). Sign in again.";
        onUnauthorized(new ApiProblem(401, { code: "unauthorized", detail }));
      }
      return undefined;
    },
  });
  return client;
}

function problemOf(status: number, error: unknown, retryAfter: string | null = null): ApiProblem {
  const seconds = retryAfter === null ? undefined : Number(retryAfter);
  const retryAfterSeconds = seconds !== undefined && Number.isFinite(seconds) ? seconds : undefined;
  if (error && typeof error === "object" && "detail" in error && "code" in error) {
    return new ApiProblem(status, error as Problem, retryAfterSeconds);
  }
  return new ApiProblem(status, { code: "internal_error", detail: `The server answered ${status} without an explanation.` });
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; a problem is thrown as ApiProblem, a network failure as one too. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (error) {
    throw new ApiProblem(0, { code: "network_error" as never, detail: `Could not reach the server (${(error as Error).message}).` });
  }
  if (!answer.response.ok) throw problemOf(answer.response.status, answer.error, answer.response.headers.get("Retry-After"));
  return answer.data as T;
}

// ---- Contacts import ---------------------------------------------------------------------------------------
export type ImportRow = Schemas["ImportContactRow"];
export type ImportError = Schemas["ImportRowError"];
export type ImportResult = Schemas["ImportContactsResult"];

export async function importContacts(client: SmsClient, contacts: ImportRow[]): Promise<ImportResult> {
  return ok(client.POST("/api/v1/contacts/import", { body: { contacts } }));
}
