// An account's message templates (migration 055). SQL only; the rules are services/templates.ts's.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { run, sql } from "./sql.js";

export interface TemplateRow {
  id: string;
  name: string;
  body: string;
  category: "marketing" | "transactional" | null;
  createdAt: Date;
  updatedAt: Date;
}

export type TemplateFields = Pick<TemplateRow, "name" | "body" | "category">;

const COLUMNS = ["id", "name", "body", "category", "created_at as createdAt", "updated_at as updatedAt"];

/** Throws unique violation `templates_account_name_key` for a name the account has already. */
export async function insertTemplate(db: Knex, accountId: string, t: TemplateFields): Promise<TemplateRow> {
  const [row] = await db("templates")
    .insert({ account_id: accountId, name: t.name, body: t.body, category: t.category })
    .returning(COLUMNS);
  return row as TemplateRow;
}

export async function listTemplates(db: Knex, accountId: string, opts: { after?: CursorKey; limit: number }) {
  const query = db("templates")
    .where({ account_id: accountId })
    .select([...COLUMNS, cursorAtColumn(db, "created_at")]);
  return newestFirstPage(query, opts.after, opts.limit) as Promise<(TemplateRow & CursorKey)[]>;
}

export async function getTemplate(db: Knex, accountId: string, templateId: string): Promise<TemplateRow | undefined> {
  return db("templates").where({ account_id: accountId, id: templateId }).first(COLUMNS);
}

/** The account's templates among `ids` (a batch's), by id. */
export async function getTemplates(db: Knex, accountId: string, ids: string[]): Promise<Map<string, TemplateRow>> {
  if (ids.length === 0) return new Map();
  const rows: TemplateRow[] = await db("templates").where({ account_id: accountId }).whereIn("id", ids).select(COLUMNS);
  return new Map(rows.map((r) => [r.id, r]));
}

export async function updateTemplate(
  db: Knex,
  accountId: string,
  templateId: string,
  changes: Partial<TemplateFields>,
): Promise<TemplateRow | undefined> {
  const [row] = await db("templates")
    .where({ account_id: accountId, id: templateId })
    .update({ ...changes, updated_at: db.fn.now() })
    .returning(COLUMNS);
  return row as TemplateRow | undefined;
}

/**
 * Deletes the template unless it is in use: a campaign made from it not finished, or a message made from it
 * still waiting (scheduled, or being sent). One statement, so a use made at the same time is either seen or
 * made after the template is gone (a send that names a deleted template is refused).
 */
export async function deleteTemplateUnlessUsed(
  db: Knex,
  accountId: string,
  templateId: string,
): Promise<"deleted" | "in_use" | "not_found"> {
  const { rows } = await run<{ found: boolean; used: boolean; deleted: boolean }>(
    db,
    sql`WITH t AS (SELECT id FROM templates WHERE account_id = ${accountId} AND id = ${templateId}::uuid FOR UPDATE),
             used AS (
               SELECT EXISTS (SELECT FROM campaigns WHERE account_id = ${accountId} AND template_id = ${templateId}::uuid
                                 AND status IN ('draft', 'scheduled', 'sending', 'paused'))
                   OR EXISTS (SELECT FROM messages WHERE account_id = ${accountId} AND template_id = ${templateId}::uuid
                                 AND status IN ('scheduled', 'sending')) AS used
             ),
             gone AS (DELETE FROM templates WHERE id IN (SELECT id FROM t) AND NOT (SELECT used FROM used) RETURNING id)
        SELECT EXISTS (SELECT FROM t) AS found, (SELECT used FROM used) AS used, EXISTS (SELECT FROM gone) AS deleted`,
  );
  const r = rows[0]!;
  return r.deleted ? "deleted" : r.found ? "in_use" : "not_found";
}
