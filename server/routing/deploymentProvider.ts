// The deployment's connectors as a starting process finds them (docs/ROUTING.md, "The default connector"): the
// deployment's choice, recorded in the database so that every process agrees, never a process's own default.
// The rules, checked by test/deploy/deployment-provider.test.ts and stated in docs/OPERATIONS.md:
// - when no connector exists, a process started with PROVIDER (and SMPP_URL for smpp) makes the `default`
//   connector and a catch-all route to it; so does the first start outside production without them (the
//   simulator, so `npm start` works on a fresh machine); a production start without them refuses;
// - once a connector exists, the API manages them: a PROVIDER/SMPP_URL that differs from `default` is reported
//   with a warning and not applied;
// - production whose every connector is the simulator is refused unless ALLOW_SIMULATOR_IN_PRODUCTION=1: it
//   sends nothing, and every message would show `delivered`.
import type { Config } from "../config.js";
import { insertConnector, listConnectors, type ConnectorSettings, type SmppSettings } from "./connectorsTable.js";
import type { Db } from "../db/knex.js";
import { readRoutingTable, replaceRoutingTable } from "./routesTable.js";
import type { Logger } from "../logger.js";
import { isDeepStrictEqual } from "node:util";

export const DEFAULT_CONNECTOR = "default";

/** A start the rules above refuse; its message is the one line the process prints. */
export class ProviderRefused extends Error {}

export interface DeploymentProvider {
  provider: "simulator" | "smpp";
  /** For smpp: smpp://system_id:password@host:port. */
  smppUrl?: string;
}

/** Resolves (and, where the rules say so, records) the deployment's connectors for a starting process. */
export async function resolveDeploymentProvider(
  db: Db,
  config: Pick<Config, "provider" | "smppUrl" | "nodeEnv" | "allowSimulatorInProduction" | "smppSystemType" | "smppDefaultCountry">,
  log: Logger,
): Promise<DeploymentProvider> {
  const production = config.nodeEnv === "production";
  const wanted = config.provider === undefined ? undefined : fromEnvironment(config);
  let connectors = await listConnectors(db);
  if (connectors.length === 0) {
    if (!wanted && production)
      throw new ProviderRefused(
        "cannot start: no provider is configured. Set PROVIDER=smpp and SMPP_URL=smpp://system_id:password@host:port (or PROVIDER=simulator with ALLOW_SIMULATOR_IN_PRODUCTION=1 to send nothing)",
      );
    await createDefaultConnector(db, wanted ?? { type: "simulator", smpp: null });
    connectors = await listConnectors(db);
  } else if (wanted) {
    const recorded = connectors.find((c) => c.name === DEFAULT_CONNECTOR);
    if (!recorded || recorded.type !== wanted.type || !isDeepStrictEqual(recorded.smpp, wanted.smpp))
      log.warn(
        { recorded: recorded?.type ?? null, environment: wanted.type },
        "PROVIDER/SMPP_URL differ from the deployment's `default` connector and are not applied: connectors are managed by the API (/api/v1/connectors)",
      );
  }
  if (production && !config.allowSimulatorInProduction && connectors.every((c) => c.type === "simulator"))
    throw new ProviderRefused(
      "cannot start: this production deployment's provider is the simulator, which sends nothing. Set PROVIDER=smpp and SMPP_URL, or ALLOW_SIMULATOR_IN_PRODUCTION=1 to run on it anyway",
    );
  if (production && connectors.some((c) => c.type === "simulator" && c.enabled) && connectors.some((c) => c.type !== "simulator"))
    log.warn(
      { simulators: connectors.filter((c) => c.type === "simulator").map((c) => c.name) },
      "production runs the simulator beside carrier connectors: a message routed to it is never sent but shows delivered; disable it (PATCH /api/v1/connectors/{id} {enabled:false}) unless that is meant",
    );
  const main = connectors.find((c) => c.name === DEFAULT_CONNECTOR) ?? connectors[0]!;
  log.info(
    { provider: main.type, from: config.provider === undefined ? "the deployment's record" : "PROVIDER", connectors: connectors.length },
    "provider",
  );
  return main.type === "smpp" ? { provider: "smpp", smppUrl: smppUrlOf(main.smpp) } : { provider: "simulator" };
}

/** The `default` connector, and the catch-all route to it when the table has no route yet. */
async function createDefaultConnector(db: Db, settings: ConnectorSettings): Promise<void> {
  await db.transaction(async (tx) => {
    // Two processes starting at once: the table row is locked first, so one makes both and the other neither.
    const table = await readRoutingTable(tx, { forUpdate: true });
    const made = await insertConnector(tx, { name: DEFAULT_CONNECTOR, settings, maxSegmentsPerSecond: null, enabled: true });
    if (made && table.routes.length === 0)
      await replaceRoutingTable(tx, table.version, [
        { name: "default", match: {}, connectors: [{ connectorId: made.id, weight: 1 }], fallback: [] },
      ]);
  });
}

function fromEnvironment(config: Pick<Config, "provider" | "smppUrl" | "smppSystemType" | "smppDefaultCountry">): ConnectorSettings {
  const { provider, smppUrl } = config;
  if (provider === "simulator") return { type: "simulator", smpp: null };
  if (!smppUrl) throw new ProviderRefused("cannot start: PROVIDER=smpp needs SMPP_URL=smpp://system_id:password@host:port");
  let url: URL;
  try {
    url = new URL(smppUrl);
  } catch {
    throw new ProviderRefused("cannot start: SMPP_URL is not a URL (smpp://system_id:password@host:port)");
  }
  if (url.protocol !== "smpp:" || !url.hostname || !url.username)
    throw new ProviderRefused("cannot start: SMPP_URL must be smpp://system_id:password@host:port");
  return {
    type: "smpp",
    smpp: {
      host: url.hostname,
      port: Number(url.port || 2775),
      systemId: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      ...(config.smppSystemType ? { systemType: config.smppSystemType } : {}),
      ...(config.smppDefaultCountry ? { defaultCountry: config.smppDefaultCountry } : {}),
    },
  };
}

export function smppUrlOf(s: SmppSettings): string {
  return `smpp://${encodeURIComponent(s.systemId)}:${encodeURIComponent(s.password)}@${s.host}:${s.port}`;
}
