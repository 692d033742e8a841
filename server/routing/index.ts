// Carrier routing, as one module (docs/ROUTING.md): the pure rules (routeRules.ts: which route a message takes
// and its candidates; senderChoice.ts: which sender of a pool), the tables (connectorsTable.ts, routesTable.ts,
// senderPoolsTable.ts: SQL, importing no service of the module), and the operator's services (connectorAdmin.ts:
// connectors and the routing table; senderPools.ts: pools and the choice at send time; deploymentProvider.ts:
// the connector SMPP_URL names at start). This file is the module's only entry: lint refuses an import of any
// other file of it from outside (.dependency-cruiser.cjs, "modules-through-their-index"). Sending by the table,
// with failover, is the engine's: providers/connectorSet.ts and providers/failover.ts.
export { candidatesOf, matchRoute, type Route, type RoutedFacts, routeTableErrors, shadowedRoutes } from "./routeRules.js";
export { type Book, chooseSender } from "./senderChoice.js";
export {
  carrierReachable,
  carriersReachable,
  type ConnectorState,
  forgetConnectorStates,
  insertConnector,
  listConnectors,
  readConnector,
  recordConnectorStates,
  type SmppSettings,
  updateConnector,
} from "./connectorsTable.js";
export { type LiveConnector, readRoutingGeneration, readRoutingSnapshot, readRoutingTable, type RoutingTable } from "./routesTable.js";
export { getSenderPool, listSenderPools, type SenderPoolRow } from "./senderPoolsTable.js";
export {
  changeConnector,
  connectorView,
  type ConnectorView,
  connectorViews,
  createConnector,
  explainRoute,
  removeConnector,
  replaceRoutes,
  routingTable,
} from "./connectorAdmin.js";
export { changePool, chooseSenders, createPool, getPool, listPools, previewSender, removePool } from "./senderPools.js";
export { ProviderRefused, resolveDeploymentProvider } from "./deploymentProvider.js";
