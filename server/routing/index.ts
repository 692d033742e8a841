// Carrier routing, as one module (docs/ROUTING.md): the pure rules (routeRules.ts: which route a message takes
// and its candidates; senderChoice.ts: which sender of a pool), the tables (connectorsTable.ts, routesTable.ts,
// senderPoolsTable.ts: SQL, importing no service of the module), and the operator's services (connectorAdmin.ts:
// connectors and the routing table; senderPools.ts: pools and the choice at send time; deploymentProvider.ts:
// the connector SMPP_URL names at start). This file is the module's only entry: lint refuses an import of any
// other file of it from outside (.dependency-cruiser.cjs, "modules-through-their-index"). Sending by the table,
// with failover, is the engine's: providers/connectorSet.ts and providers/failover.ts.
export * from "./routeRules.js";
export * from "./senderChoice.js";
export * from "./connectorsTable.js";
export * from "./routesTable.js";
export * from "./senderPoolsTable.js";
export * from "./connectorAdmin.js";
export * from "./senderPools.js";
export * from "./deploymentProvider.js";
