// What a stretch of work wrote, from PostgreSQL's own counters: WAL bytes (pg_current_wal_lsn) and row writes
// per table (pg_stat_user_tables: inserts, updates and of them HOT, deletes). The message path's benchmarks
// report both per message beside rate and CPU.
//
// The table counters are flushed by each backend when it goes idle, at most once a second and within
// PGSTAT_IDLE_INTERVAL (10 s) of its last work: read them after the processes doing the work have stopped, or
// STATS_SETTLE_MS after the last of it (an exiting backend flushes at once).
import type { Knex } from "knex";

export const STATS_SETTLE_MS = 11_000;

interface TableCounters {
  inserts: number;
  updates: number;
  hotUpdates: number;
  deletes: number;
}
export interface WriteCounters {
  lsn: string;
  tables: Map<string, TableCounters>;
}
/**
 * Per message: WAL bytes, row writes in all, of them those that are not HOT updates (an insert, a delete or an
 * update that wrote index entries: issue 60's budget), and each table's share (tables with no writes left out).
 */
export interface WritesPerMessage {
  walBytes: number;
  rowWrites: number;
  nonHotWrites: number;
  tables: Record<string, TableCounters & { writes: number }>;
}

export async function readWriteCounters(db: Knex): Promise<WriteCounters> {
  const { rows } = await db.raw<{ rows: ({ relname: string; lsn: string } & Record<keyof TableCounters, string>)[] }>(
    `SELECT relname, n_tup_ins AS inserts, n_tup_upd AS updates, n_tup_hot_upd AS "hotUpdates", n_tup_del AS deletes,
            pg_current_wal_lsn()::text AS lsn
       FROM pg_stat_user_tables`,
  );
  const tables = new Map(
    rows.map((r) => [r.relname, { inserts: +r.inserts, updates: +r.updates, hotUpdates: +r.hotUpdates, deletes: +r.deletes }]),
  );
  const lsn = rows[0]?.lsn ?? (await db.raw<{ rows: { lsn: string }[] }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!.lsn;
  return { lsn, tables };
}

const perMessage = (x: number, n: number) => Number((x / n).toFixed(2));

/** The writes between `before` and `after`, divided by `messages`. */
export async function writesPerMessage(db: Knex, before: WriteCounters, after: WriteCounters, messages: number): Promise<WritesPerMessage> {
  const { rows } = await db.raw<{ rows: { bytes: string }[] }>("SELECT pg_wal_lsn_diff(?::pg_lsn, ?::pg_lsn)::bigint AS bytes", [
    after.lsn,
    before.lsn,
  ]);
  const tables: WritesPerMessage["tables"] = {};
  let rowWrites = 0;
  let hotUpdates = 0;
  for (const [name, a] of [...after.tables].sort(([x], [y]) => x.localeCompare(y))) {
    const b = before.tables.get(name) ?? { inserts: 0, updates: 0, hotUpdates: 0, deletes: 0 };
    const d = {
      inserts: a.inserts - b.inserts,
      updates: a.updates - b.updates,
      hotUpdates: a.hotUpdates - b.hotUpdates,
      deletes: a.deletes - b.deletes,
    };
    const writes = d.inserts + d.updates + d.deletes;
    if (writes === 0) continue;
    rowWrites += writes;
    hotUpdates += d.hotUpdates;
    tables[name] = {
      inserts: perMessage(d.inserts, messages),
      updates: perMessage(d.updates, messages),
      hotUpdates: perMessage(d.hotUpdates, messages),
      deletes: perMessage(d.deletes, messages),
      writes: perMessage(writes, messages),
    };
  }
  return {
    walBytes: Math.round(Number(rows[0]!.bytes) / messages),
    rowWrites: perMessage(rowWrites, messages),
    nonHotWrites: perMessage(rowWrites - hotUpdates, messages),
    tables,
  };
}
