// The architecture as lint (npm run lint runs it): layers point down — http → services → db → domain, jobs →
// services, providers and webhooks beside them — and nothing imports a migration but the migration list. Every
// rule here is one docs/ARCHITECTURE.md ("Layout") states; a change of layering changes both.
// The product features that are modules (docs/ARCHITECTURE.md, "Modules"), and each one's pure rules.
const MODULES = "(routing|reports|operator|billing)";
const MODULE_RULES = "(routeRules|senderChoice|reportRows|accountNames|apiKeySecrets|priceRules|userRoles)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module cycle makes load order matter and the layers meaningless.",
      from: { path: "^(server|common|dashboard/src|client|scripts)/" },
      to: { circular: true },
    },
    {
      name: "domain-is-pure",
      severity: "error",
      comment: "server/domain holds the rules: it imports only itself, common/, the generated types and libraries.",
      from: { path: "^server/domain/" },
      to: { path: "^(server/(?!domain/)|client/|dashboard/)" },
    },
    {
      name: "common-stands-alone",
      severity: "error",
      comment: "common/ is pure code the server, the client and the dashboard share (segments, personalisation).",
      from: { path: "^common/" },
      to: { path: "^(server|client|dashboard|generated)/" },
    },
    {
      name: "modules-through-their-index",
      severity: "error",
      comment:
        "server/routing, server/reports and server/operator are modules (docs/ARCHITECTURE.md, 'Modules'): from outside one, only its index.ts is imported, so what it offers is one file to read.",
      from: { path: "^(server/[^/]+|[^/]+)/" },
      to: { path: `^server/${MODULES}/`, pathNot: ["^$1/", `^server/${MODULES}/index\\.ts$`] },
    },
    {
      name: "module-tables-below-its-services",
      severity: "error",
      comment: "Inside a module, a table (*Table.ts) imports only the module's pure rules and other tables, never one of its services.",
      from: { path: `^server/${MODULES}/[^/]*Table\\.ts$` },
      to: { path: "^server/$1/", pathNot: `^server/$1/([^/]*Table|${MODULE_RULES})\\.ts$` },
    },
    {
      name: "module-rules-are-pure",
      severity: "error",
      comment: "A module's rules (MODULE_RULES above) are domain code: they import only the domain and each other.",
      from: { path: `^server/${MODULES}/${MODULE_RULES}\\.ts$` },
      to: { path: `^(server/(?!domain/|$1/${MODULE_RULES}\\.ts$)|client/|dashboard/)` },
    },
    {
      name: "modules-beside-services",
      severity: "error",
      comment: "A module sits where the services do: db and domain never import one.",
      from: { path: "^server/(db|domain)/" },
      to: { path: `^server/${MODULES}/` },
    },
    {
      name: "db-below-services",
      severity: "error",
      comment: "server/db persists: it knows the domain, never who calls it.",
      from: { path: "^server/db/" },
      to: { path: "^server/(services|http|jobs|providers|webhooks)/" },
    },
    {
      name: "services-below-http-and-jobs",
      severity: "error",
      from: { path: `^server/(services|${MODULES.slice(1, -1)})/` },
      to: { path: "^server/(http|jobs|providers)/" },
    },
    {
      name: "webhooks-client-stands-alone",
      severity: "error",
      comment: "server/webhooks is the receipt POST (client, signing, pacing): it knows no table and no layer.",
      from: { path: "^server/webhooks/" },
      to: { path: "^server/(db|services|http|jobs|providers)/" },
    },
    {
      name: "providers-below-jobs",
      severity: "error",
      from: { path: "^server/providers/" },
      to: { path: "^server/(http|jobs)/" },
    },
    {
      name: "jobs-not-http",
      severity: "error",
      from: { path: "^server/jobs/" },
      to: { path: "^server/http/" },
    },
    {
      name: "config-reads-the-environment-only",
      severity: "error",
      comment: "config.ts reads settings (settingReaders.ts) into plain values and types (domain/): below every layer that reads it.",
      from: { path: "^server/config\\.ts$" },
      to: { path: "^server/", pathNot: "^server/(domain/|settingReaders\\.ts$)" },
    },
    {
      name: "smpp-server-is-a-door",
      severity: "error",
      comment:
        "The SMPP server for client applications is a door beside the HTTP API: it calls services and modules, never the HTTP layer or the job runner.",
      from: { path: "^server/smppServer/" },
      to: { path: "^server/(http|jobs)/" },
    },
    {
      name: "nothing-below-reaches-a-door",
      severity: "error",
      comment: "The doors (http/, smppServer/) and the processes (main.ts, worker.ts) are on top: nothing below imports them.",
      from: { path: `^server/(services|db|domain|providers|jobs|webhooks|${MODULES.slice(1, -1)})/` },
      to: { path: "^server/(http/|smppServer/|main\\.ts$|worker\\.ts$)" },
    },
    {
      name: "the-processes-on-top",
      severity: "error",
      comment:
        "main.ts starts everything (it may start a worker); worker.ts is imported by main.ts alone (and tests, scripts, benchmarks).",
      from: { path: "^server/", pathNot: "^server/main\\.ts$" },
      to: { path: "^server/(main|worker)\\.ts$" },
    },
    {
      name: "migrations-frozen",
      severity: "error",
      comment: "A migration is history: nothing but the migration list imports one (tests included).",
      from: { pathNot: "^server/db/migrations/index\\.ts$" },
      to: { path: "^server/db/migrations/[0-9]" },
    },
    {
      name: "migrations-import-no-live-code",
      severity: "error",
      comment: "A migration is frozen both ways: it imports libraries and knex's types, never the project's own code, which changes.",
      from: { path: "^server/db/migrations/[0-9]" },
      to: { path: "^(server|common|generated|client|dashboard)/" },
    },
    {
      name: "dashboard-through-the-client",
      severity: "error",
      comment: "The dashboard talks to the service as partners do: through client/ (and common/), never the server's code.",
      from: { path: "^dashboard/" },
      to: { path: "^(server|generated|test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.data|\\.test-data|\\.scratch)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
