import type { Knex } from "knex";

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
      contactCount: db("contacts as c").whereRaw("c.group_id = g.id").count("*"),
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

export async function groupExists(db: Knex, accountId: string, groupId: string): Promise<boolean> {
  return Boolean(await db("groups").where({ account_id: accountId, id: groupId }).first("id"));
}

/** Deletes a group; its contacts become unassigned by the foreign key's ON DELETE SET NULL, atomically. */
export async function deleteGroup(db: Knex, accountId: string, groupId: string): Promise<boolean> {
  return (await db("groups").where({ account_id: accountId, id: groupId }).del()) > 0;
}
