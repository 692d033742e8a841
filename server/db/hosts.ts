// DATABASE_URL in libpq's multi-host form, as pg_autoctl prints it for a pg_auto_failover formation:
//   postgres://user@node1:5432,node2:5432/app?target_session_attrs=read-write
// node-postgres connects to one host and cannot parse that URL (brianc/node-postgres#1470), so the hosts are tried
// here, in the order given, as libpq tries them: the first one that answers and has the session attributes asked
// for is used. Every new connection of the pool is checked again (a standby promoted, the old primary demoted),
// and a lost connection makes the next one look again, so a failover needs no restart (docs/OPERATIONS.md,
// "High availability"). A URL with one host and no target_session_attrs connects exactly as before.
import pg from "pg";
import connectionString from "pg-connection-string";

/** libpq's target_session_attrs: which of the hosts a session may use. */
export const SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

export interface HostPort {
  host: string;
  port: number;
}

export interface DatabaseHosts {
  hosts: HostPort[];
  /** Everything but the host and port: user, password, database, ssl, options. */
  base: pg.ClientConfig;
  attrs: SessionAttrs;
}

/** A URL that names no usable host list, or an unknown target_session_attrs. */
export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatabaseUrlError";
  }
}

/**
 * No host had the session attributes asked for. Its code is SQLSTATE 08001 (the client could not establish a
 * connection), so the API answers it 503 and the workers retry it as they retry any lost connection.
 */
export class NoSuitableHostError extends Error {
  readonly code = "08001";
  constructor(attrs: SessionAttrs, reasons: string[]) {
    super(`no database host is usable for target_session_attrs=${attrs}: ${reasons.join("; ")}`);
    this.name = "NoSuitableHostError";
  }
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;

/** One `host[:port]` or `[v6]:port` of the list. */
function hostPort(item: string, url: string): HostPort {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d*))?$/.exec(item);
  if (!match) throw new DatabaseUrlError(`DATABASE_URL has an unreadable host "${item}"`);
  const host = decodeURIComponent(match[1]!.replace(/^\[|\]$/g, ""));
  if (!host) throw new DatabaseUrlError(`DATABASE_URL names an empty host in "${redacted(url)}"`);
  return { host, port: match[2] ? Number(match[2]) : 5432 };
}

/** The URL with any password replaced, for messages. */
const redacted = (url: string) => url.replace(/(:\/\/[^:@/]*:)[^@/]*@/, "$1***@");

/** Reads a connection URL with one host or several. A Unix socket path or a URL of one host passes through pg's own parser. */
export function parseDatabaseUrl(url: string): DatabaseHosts {
  const parts = URL_PARTS.exec(url);
  const items = parts?.[3] ? parts[3].split(",") : [];
  const config = connectionString.parse(
    parts && items.length > 1 ? `${parts[1]}${parts[2] ?? ""}${items[0]}${parts[4]}` : url,
  ) as unknown as Record<string, unknown>;
  const attrs = (config.target_session_attrs as string | undefined) ?? "any";
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs))
    throw new DatabaseUrlError(`DATABASE_URL has target_session_attrs=${attrs}; use one of ${SESSION_ATTRS.join(", ")}`);
  const hosts =
    parts && items.length > 1
      ? items.map((item) => hostPort(item, url))
      : [{ host: String(config.host ?? "localhost"), port: config.port ? Number(config.port) : 5432 }];
  const base = { ...config };
  delete base.host;
  delete base.port;
  delete base.target_session_attrs;
  // An empty password means none given (PGPASSWORD or ~/.pgpass may have one), as in pg's own parser.
  for (const key of Object.keys(base))
    if (base[key] === null || base[key] === undefined || (key === "password" && base[key] === "")) delete base[key];
  return { hosts, base: base, attrs: attrs as SessionAttrs };
}

/** True when the URL needs a host chosen at each connection (several hosts, or attributes to check). */
export const choosesHost = (target: DatabaseHosts) => target.hosts.length > 1 || target.attrs !== "any";

/** What a connected session is, as target_session_attrs asks (libpq checks transaction_read_only and pg_is_in_recovery). */
async function sessionFits(client: pg.Client, attrs: SessionAttrs, pass: "standby" | "any"): Promise<string | undefined> {
  if (attrs === "any") return undefined;
  const { rows } = await client.query<{ ro: string; standby: boolean }>(
    "SELECT current_setting('transaction_read_only') AS ro, pg_is_in_recovery() AS standby",
  );
  const { ro, standby } = rows[0]!;
  if (attrs === "read-write" && ro === "on") return "read-only";
  if (attrs === "read-only" && ro !== "on") return "not read-only";
  if (attrs === "primary" && standby) return "a standby";
  if ((attrs === "standby" || (attrs === "prefer-standby" && pass === "standby")) && !standby) return "not a standby";
  return undefined;
}

/** Checks a session already open (a new connection of the pool): undefined when it fits, else why not. */
export async function whyUnfit(client: pg.Client, attrs: SessionAttrs): Promise<string | undefined> {
  return sessionFits(client, attrs, "any");
}

/**
 * The first host, in the URL's order, that accepts a connection and has the attributes asked for
 * (prefer-standby: a standby, else any host). Each try is bounded by `timeoutMs`.
 */
export async function findHost(target: DatabaseHosts, timeoutMs = 3_000): Promise<HostPort> {
  const reasons: string[] = [];
  const passes: ("standby" | "any")[] = target.attrs === "prefer-standby" ? ["standby", "any"] : ["any"];
  for (const pass of passes) {
    for (const candidate of target.hosts) {
      const client = new pg.Client({ ...target.base, ...candidate, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
      client.on("error", () => undefined); // a session that dies while we look is a host that did not fit
      try {
        await client.connect();
        const unfit = await sessionFits(client, target.attrs, pass);
        if (!unfit) return candidate;
        reasons.push(`${candidate.host}:${candidate.port} is ${unfit}`);
      } catch (error) {
        reasons.push(`${candidate.host}:${candidate.port}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  }
  throw new NoSuitableHostError(target.attrs, reasons);
}

/**
 * A pg.Client config for the URL's right host now: the URL itself for one plain host, else the host findHost
 * chose. For the connections a process holds on its own (LISTEN, the maintenance lead).
 */
export async function clientConfigFor(url: string, extra: pg.ClientConfig = {}): Promise<pg.ClientConfig> {
  const target = parseDatabaseUrl(url);
  if (!choosesHost(target)) return { connectionString: url, keepAlive: true, ...extra };
  return { ...target.base, ...(await findHost(target)), keepAlive: true, ...extra };
}

/** How long a look that found no fitting host is answered again before the next look. */
const LOOK_AGAIN_MS = 250;

/**
 * The host a pool connects to, for a URL that chooses one: looked for when the pool opens its first connection,
 * and again after any of its connections is lost or a new one is found not to fit (the host was demoted, or a
 * standby was promoted elsewhere). Knex calls `connectionConfig` when `expirationChecker` says so, and runs
 * `check` on every new connection before using it.
 */
export class HostChoice {
  private stale = true;
  /** The pool's sessions open now on the chosen host. With none, nothing says the host still fits: a pool whose
   * idle connections were closed before the primary died would otherwise dial the dead host again and again. */
  private live = 0;
  private current: HostPort | undefined;
  /** The look in progress: connections opened at once share it. */
  private looking: Promise<HostPort> | undefined;
  /** The last look that found no host, answered again for LOOK_AGAIN_MS: while no node takes writes, each
   * request fails at once (503) instead of every new connection probing every host. */
  private failed: { error: unknown; at: number } | undefined;

  constructor(
    private readonly target: DatabaseHosts,
    private readonly extra: pg.ClientConfig,
    private readonly onChosen: (host: HostPort, previous: HostPort | undefined) => void = () => undefined,
  ) {}

  async connectionConfig(): Promise<pg.ClientConfig & { expirationChecker: () => boolean }> {
    if (this.failed && Date.now() - this.failed.at < LOOK_AGAIN_MS) throw this.failed.error;
    this.looking ??= findHost(this.target).finally(() => (this.looking = undefined));
    let host: HostPort;
    try {
      host = await this.looking;
      this.failed = undefined;
    } catch (error) {
      this.failed = { error, at: Date.now() };
      throw error;
    }
    if (host.host !== this.current?.host || host.port !== this.current.port) this.onChosen(host, this.current);
    this.current = host;
    this.stale = false;
    return { ...this.target.base, ...host, keepAlive: true, ...this.extra, expirationChecker: () => this.stale || this.live === 0 };
  }

  /** A new connection failed: the host is looked for again before the next one. */
  forget(): void {
    this.stale = true;
  }

  /** Runs on each new connection: a session that does not fit is refused, and the next connection looks again. */
  async check(client: pg.Client): Promise<void> {
    let counted = false;
    const gone = () => {
      if (!(client as unknown as { _ending?: boolean })._ending) this.stale = true;
      if (counted) this.live--;
      counted = false;
    };
    client.on("error", gone);
    client.on("end", gone);
    const unfit = await whyUnfit(client, this.target.attrs);
    if (unfit) {
      this.stale = true;
      throw new NoSuitableHostError(this.target.attrs, [`${this.current?.host}:${this.current?.port} is now ${unfit}`]);
    }
    this.live++;
    counted = true;
  }
}
