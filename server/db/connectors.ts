// The connectors table (migration 022): the deployment's provider as one row, `default`, for now.
import { isDeepStrictEqual } from "node:util";
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

/** An SMPP connector's link, as SMPP_URL spells it apart. */
export interface SmppSettings {
  host: string;
  port: number;
  systemId: string;
  password: string;
}

export type ConnectorSettings = { type: "simulator"; smpp: null } | { type: "smpp"; smpp: SmppSettings };

export type ConnectorRow = ConnectorSettings & { name: string; createdAt: Date; updatedAt: Date };

export async function readConnector(db: Knex, name: string): Promise<ConnectorRow | undefined> {
  const { rows } = await run<ConnectorRow>(
    db,
    sql`SELECT name, type, smpp, created_at AS "createdAt", updated_at AS "updatedAt" FROM connectors WHERE name = ${name}`,
  );
  return rows[0];
}

/**
 * Records the connector's settings: inserts it, or changes it when they differ. Returns the row now stored and
 * the settings it had before (undefined when it is new or unchanged).
 */
export async function recordConnector(
  db: Knex,
  name: string,
  settings: ConnectorSettings,
): Promise<{ row: ConnectorRow; before: ConnectorSettings | undefined }> {
  return db.transaction(async (tx) => {
    // Locked, so two processes starting at once each see what the other wrote, and report a change once.
    await run(
      tx,
      sql`INSERT INTO connectors (name, type, smpp) VALUES (${name}, ${settings.type}, ${jsonOf(settings)}::jsonb)
                      ON CONFLICT (name) DO NOTHING`,
    );
    const { rows } = await run<ConnectorSettings>(tx, sql`SELECT type, smpp FROM connectors WHERE name = ${name} FOR UPDATE`);
    const stored = rows[0]!;
    const changed = stored.type !== settings.type || !isDeepStrictEqual(stored.smpp, settings.smpp); // jsonb reorders keys
    if (changed)
      await run(
        tx,
        sql`UPDATE connectors SET type = ${settings.type}, smpp = ${jsonOf(settings)}::jsonb, updated_at = now() WHERE name = ${name}`,
      );
    return { row: (await readConnector(tx, name))!, before: changed ? stored : undefined };
  });
}

const jsonOf = (settings: ConnectorSettings) => (settings.smpp === null ? null : JSON.stringify(settings.smpp));

/** True when every connector of the deployment is the simulator (and there is at least one). */
export async function simulatorAlone(db: Knex): Promise<boolean> {
  const { rows } = await run<{ alone: boolean | null }>(db, sql`SELECT bool_and(type = 'simulator') AS alone FROM connectors`);
  return rows[0]?.alone === true;
}
