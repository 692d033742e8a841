import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface GroupRow {
  id: string;
  name: string;
  description: string | null;
  contactCount: number;
  createdAt: Date;
}

function selectGroups(db: Knex, accountId: string) {
  return db("groups as g")
    .where("g.account_id", accountId)
    .select({
      id: "g.id",
      name: "g.name",
      description: "g.description",
      createdAt: "g.created_at",
      contactCount: db("contact_groups as cg").where("cg.account_id", accountId).whereRaw("cg.group_id = g.id").count("*"),
    });
}

/** Inserts a group; throws unique violation `groups_account_name_key` on a duplicate name. */
export async function insertGroup(db: Knex, accountId: string, group: { name: string; description: string | null }): Promise<GroupRow> {
  const [row] = await db("groups")
    .insert({ account_id: accountId, name: group.name, description: group.description })
    .returning(["id", "name", "description", "created_at as createdAt"]);
  return { ...row, contactCount: 0 } as GroupRow;
}

export async function listGroups(db: Knex, accountId: string): Promise<GroupRow[]> {
  return selectGroups(db, accountId).orderByRaw("lower(g.name), g.id");
}

export async function getGroup(db: Knex, accountId: string, groupId: string): Promise<GroupRow | undefined> {
  return selectGroups(db, accountId).where("g.id", groupId).first();
}

/** Of these ids, those that name a group of the account. */
export async function groupsOfAccount(db: Knex, accountId: string, groupIds: string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await db("groups").where({ account_id: accountId }).whereIn("id", groupIds).select("id");
  return new Set(rows.map((r: { id: string }) => r.id));
}

export async function groupExists(db: Knex, accountId: string, groupId: string): Promise<boolean> {
  return Boolean(await db("groups").where({ account_id: accountId, id: groupId }).first("id"));
}

/**
 * For each reference that names a group of the account, by id or by name (case-insensitive, as the unique
 * index compares them), that group's id; an id match wins. The groups are locked FOR SHARE so none is
 * deleted before the caller's transaction, which places contacts in them, commits.
 */
export async function resolveGroupRefs(db: Knex, accountId: string, refs: string[]): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const { rows } = await run<{ ref: string; id: string }>(
    db,
    sql`WITH r AS (SELECT DISTINCT ref FROM unnest(${refs}::text[]) AS r(ref)),
     m AS (
       SELECT r.ref, g.id, true AS by_id FROM r JOIN groups g
         ON g.account_id = ${accountId} AND g.id = CASE WHEN r.ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN r.ref::uuid END
       UNION ALL
       SELECT r.ref, g.id, false FROM r JOIN groups g ON g.account_id = ${accountId} AND lower(g.name) = lower(r.ref)
     )
     SELECT m.ref, m.id FROM m JOIN groups g ON g.id = m.id ORDER BY m.by_id FOR SHARE OF g`,
  );
  // Ordered name matches first, so an id match of the same reference overwrites it.
  return new Map(rows.map((r) => [r.ref, r.id]));
}

/** Deletes a group; its memberships go with it (contact_groups' ON DELETE CASCADE), its contacts stay. */
export async function deleteGroup(db: Knex, accountId: string, groupId: string): Promise<boolean> {
  return (await db("groups").where({ account_id: accountId, id: groupId }).del()) > 0;
}
