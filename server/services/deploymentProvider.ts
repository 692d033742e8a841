// Which provider the deployment sends through: the deployment's choice, recorded in the database (the
// `default` connector) so that every process agrees, never a process's own default. The rules, checked by
// test/deploy/deployment-provider.test.ts and stated in docs/OPERATIONS.md ("The provider"):
// - a process started with PROVIDER (and SMPP_URL for smpp) records that choice, and says so when it changes
//   what was recorded;
// - a process started without PROVIDER follows the record;
// - with nothing recorded and no PROVIDER, a start outside production records the simulator (so `npm start`
//   works on a fresh machine), and a production start is refused;
// - production on the simulator is refused unless ALLOW_SIMULATOR_IN_PRODUCTION=1: it sends nothing, and
//   every message would show `delivered`.
import type { Config } from "../config.js";
import { readConnector, recordConnector, type ConnectorSettings, type SmppSettings } from "../db/connectors.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";

export const DEFAULT_CONNECTOR = "default";

/** A start the rules above refuse; its message is the one line the process prints. */
export class ProviderRefused extends Error {}

export interface DeploymentProvider {
  provider: "simulator" | "smpp";
  /** For smpp: smpp://system_id:password@host:port. */
  smppUrl?: string;
}

/** Resolves (and, where the rules say so, records) the deployment's provider for a starting process. */
export async function resolveDeploymentProvider(
  db: Db,
  config: Pick<Config, "provider" | "smppUrl" | "nodeEnv" | "allowSimulatorInProduction">,
  log: Logger,
): Promise<DeploymentProvider> {
  const production = config.nodeEnv === "production";
  let settings: ConnectorSettings;
  if (config.provider !== undefined) {
    settings = fromEnvironment(config.provider, config.smppUrl);
    const { before } = await recordConnector(db, DEFAULT_CONNECTOR, settings);
    if (before)
      log.warn(
        { was: before.type, now: settings.type },
        "PROVIDER/SMPP_URL of this process changed the deployment's recorded provider; processes started without PROVIDER follow it from their next start",
      );
  } else {
    const recorded = await readConnector(db, DEFAULT_CONNECTOR);
    if (recorded) settings = recorded;
    else if (production)
      throw new ProviderRefused(
        "cannot start: no provider is configured. Set PROVIDER=smpp and SMPP_URL=smpp://system_id:password@host:port (or PROVIDER=simulator with ALLOW_SIMULATOR_IN_PRODUCTION=1 to send nothing)",
      );
    else settings = (await recordConnector(db, DEFAULT_CONNECTOR, { type: "simulator", smpp: null })).row;
  }
  if (settings.type === "simulator" && production && !config.allowSimulatorInProduction)
    throw new ProviderRefused(
      "cannot start: this production deployment's provider is the simulator, which sends nothing. Set PROVIDER=smpp and SMPP_URL, or ALLOW_SIMULATOR_IN_PRODUCTION=1 to run on it anyway",
    );
  log.info({ provider: settings.type, from: config.provider === undefined ? "the deployment's record" : "PROVIDER" }, "provider");
  return settings.type === "smpp" ? { provider: "smpp", smppUrl: smppUrlOf(settings.smpp) } : { provider: "simulator" };
}

/** The `default` connector's type now (the simulator's endpoint exists only while it is the simulator). */
export async function deploymentProviderType(db: Db): Promise<ConnectorSettings["type"] | undefined> {
  return (await readConnector(db, DEFAULT_CONNECTOR))?.type;
}

function fromEnvironment(provider: "simulator" | "smpp", smppUrl: string | undefined): ConnectorSettings {
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
    },
  };
}

function smppUrlOf(s: SmppSettings): string {
  return `smpp://${encodeURIComponent(s.systemId)}:${encodeURIComponent(s.password)}@${s.host}:${s.port}`;
}
