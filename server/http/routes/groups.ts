import { isUniqueViolation } from "../../db/errors.js";
import { deleteGroup, getGroup, insertGroup, listGroups } from "../../db/groups.js";
import { DomainError, notFound } from "../../domain/errors.js";
import { toGroup } from "../serialize.js";
import type { Handlers } from "../types.js";

export const groupHandlers: Pick<Handlers, "Groups_create" | "Groups_listAll" | "Groups_get" | "Groups_delete"> = {
  async Groups_create({ db, account, body }) {
    try {
      const group = await insertGroup(db, account.id, { name: body.name, description: body.description ?? null });
      return { status: 201, body: toGroup(group) };
    } catch (error) {
      if (isUniqueViolation(error, "groups_account_name_key")) {
        throw new DomainError("group_exists", `A group named "${body.name}" already exists.`);
      }
      throw error;
    }
  },

  async Groups_listAll({ db, account }) {
    return { status: 200, body: { data: (await listGroups(db, account.id)).map(toGroup) } };
  },

  async Groups_get({ db, account, path }) {
    const group = await getGroup(db, account.id, path.groupId);
    if (!group) throw notFound("Group");
    return { status: 200, body: toGroup(group) };
  },

  async Groups_delete({ db, account, path }) {
    if (!(await deleteGroup(db, account.id, path.groupId))) throw notFound("Group");
    return { status: 204 };
  },
};
