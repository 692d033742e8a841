// Handler types derived from the generated contract types: a handler that takes or returns anything the
// OpenAPI document does not allow is a compile error, and so is an operation without a handler.
import type { operations } from "../../generated/api.js";
import type { Config } from "../config.js";
import type { Account } from "../operator/index.js";
import type { RequestKey, RequestSession } from "./auth.js";
import type { batchItemValidator } from "./batchItems.js";
import type { ExportSlots } from "./exportSlots.js";
import type { KeyUsage } from "../operator/index.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import type { ReceiptClient } from "../webhooks/client.js";
import type { Resolver } from "../webhooks/urlPolicy.js";

export type OperationId = keyof operations;
/** Operations that need an API key (everything under /api/v1). */
export type ApiOperationId = Exclude<OperationId, `System_${string}`>;

type Op<K extends OperationId> = operations[K];
type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Param<K extends OperationId, In extends string> = Op<K>["parameters"] extends { [P in In]?: infer T } ? NonNullable<T> : never;

export type RequestBody<K extends OperationId> = Op<K> extends { requestBody: infer R } ? JsonOf<R> : undefined;
type SuccessStatus = 200 | 201 | 202 | 204;
type Statuses<K extends OperationId> = Extract<keyof Op<K>["responses"], SuccessStatus>;

/** A response written as it is made (an export): its type, its file name, and its text in pieces. */
export interface Streamed {
  contentType: string;
  filename: string;
  chunks: AsyncIterable<string | Buffer>;
}

type IsJson<R> = R extends { content: infer C } ? ("application/json" extends keyof C ? true : false) : false;

/** What a handler returns: one of the operation's success responses, typed by status (a file: streamed). */
export type Reply<K extends OperationId> = {
  [S in Statuses<K>]: (S extends 204
    ? { status: 204 }
    : IsJson<Op<K>["responses"][S]> extends true
      ? { status: S; body: JsonOf<Op<K>["responses"][S]> }
      : { status: S; stream: Streamed }) & {
    /** Headers of the answer the document declares (`Set-Cookie` of signing in and out). */
    headers?: Record<string, string>;
  };
}[Statuses<K>];

export interface Services {
  db: Db;
  /** Reports and exports read here: DATABASE_READ_URL's standby, or `db` (db/open.ts). */
  readDb?: Db;
  log: Logger;
  config: Config;
  /** The clock; tests may pin it. */
  now: () => Date;
  /** DNS for the webhook URL policy; tests inject one. */
  resolver?: Resolver;
}

import type { InvitationMailer } from "../operator/index.js";

export interface ApiServices extends Services {
  /** Sends test receipts (POST /webhooks/{id}/test). */
  receipts: ReceiptClient;
  /** When keys were last used (recorded in batches). */
  keyUsage: KeyUsage;
  /** The exports each account streams at once from this process (http/stream.ts). */
  exportSlots: ExportSlots;
  /** POST /messages/batch's body checked: each item a request or its schema error (http/batchItems.ts). */
  batchItems: ReturnType<typeof batchItemValidator>;
  /** Mails invitations where SMTP_URL is set; undefined otherwise. */
  mailer: InvitationMailer | undefined;
}

export interface Context<K extends OperationId> extends ApiServices {
  /** The key's account. Absent for an operator key (the operations whose `x-key-kinds` name `operator`). */
  account: Account;
  /** The key the request is made with (for a session: its user's role as a key, `user:<userId>`). Absent for `x-public` operations. */
  key: RequestKey;
  /** The signed-in person's session, when the request is made with the session cookie. */
  session: RequestSession | undefined;
  /** Who is asking, as far as the connection says: its address, its User-Agent, and whether it came over TLS. */
  client: { address: string; userAgent: string | null; secure: boolean; requestId: string };
  body: RequestBody<K>;
  path: Param<K, "path">;
  query: Param<K, "query">;
  headers: Param<K, "header">;
}

export type Handler<K extends ApiOperationId> = (ctx: Context<K>) => Promise<Reply<K>>;
export type Handlers = { [K in ApiOperationId]: Handler<K> };
