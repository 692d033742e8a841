// The operator's connectors and routing table (routing/connectorAdmin.ts; docs/ROUTING.md).
import {
  changeConnector,
  connectorView,
  connectorViews,
  createConnector,
  explainRoute,
  removeConnector,
  replaceRoutes,
  routingTable,
  type ConnectorView,
} from "../../routing/index.js";
import { invalidField } from "../../domain/errors.js";
import { requirePhone } from "../../domain/phone.js";
import { previewSender } from "../../routing/index.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

/** Shown without its password, with the defaults spelled out. */
function toConnector(v: ConnectorView, defaultWindow: number) {
  const { row } = v;
  const smpp = row.smpp === null ? null : (({ password: _password, ...link }) => link)(row.smpp);
  return {
    connectorId: row.id,
    name: row.name,
    type: row.type,
    smpp: smpp && {
      ...smpp,
      sessions: smpp.sessions ?? 1,
      window: smpp.window ?? defaultWindow,
      messageIdFormat: smpp.messageIdFormat ?? "auto",
    },
    maxSegmentsPerSecond: row.maxSegmentsPerSecond,
    enabled: row.enabled,
    state: v.state,
    sessionsBound: v.sessionsBound,
    stateSince: iso(v.stateSince),
    lastError: v.lastError,
    counters: v.counters,
    createdAt: iso(row.createdAt),
  };
}

export const routingHandlers: Pick<
  Handlers,
  | "Connectors_create"
  | "Connectors_list"
  | "Connectors_get"
  | "Connectors_update"
  | "Connectors_delete"
  | "Routes_get"
  | "Routes_replace"
  | "Routes_explain"
> = {
  async Connectors_create({ db, body, config }) {
    return { status: 201, body: toConnector(await createConnector(db, body), config.smppMaxInFlight) };
  },
  async Connectors_list({ db, config }) {
    return { status: 200, body: { data: (await connectorViews(db)).map((v) => toConnector(v, config.smppMaxInFlight)) } };
  },
  async Connectors_get({ db, path, config }) {
    return { status: 200, body: toConnector(await connectorView(db, path.connectorId), config.smppMaxInFlight) };
  },
  async Connectors_update({ db, path, body, config }) {
    return {
      status: 200,
      body: toConnector(await changeConnector(db, path.connectorId, body, config.connectorRefreshMs), config.smppMaxInFlight),
    };
  },
  async Connectors_delete({ db, path }) {
    await removeConnector(db, path.connectorId);
    return { status: 204 };
  },
  async Routes_get({ db }) {
    return { status: 200, body: await routingTable(db) };
  },
  async Routes_replace({ db, body }) {
    return { status: 200, body: await replaceRoutes(db, body.version, body.routes) };
  },
  async Routes_explain({ db, body }) {
    if ((body.from === undefined) === (body.senderPoolId === undefined))
      throw invalidField("/body/from", "or senderPoolId: exactly one of the two is required");
    const to = requirePhone(body.to, "/body/to");
    const facts = {
      to,
      from: body.from ?? (await previewSender(db, body.accountId, body.senderPoolId!, to)) ?? "",
      accountId: body.accountId,
      category: body.category ?? "transactional",
      priority: body.priority ?? "normal",
    };
    return { status: 200, body: await explainRoute(db, facts) };
  },
};
