// Templates (docs/API.md, "Templates"); how sends and campaigns use one is in services/templates.ts.
import { getTemplate, listTemplates, type TemplateRow } from "../../db/templates.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { templateVariables } from "../../domain/templates.js";
import { changeTemplate, createTemplate, removeTemplate } from "../../services/templates.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

const toTemplate = (t: TemplateRow) => ({
  templateId: t.id,
  name: t.name,
  body: t.body,
  category: t.category,
  variables: templateVariables(t.body),
  createdAt: iso(t.createdAt),
  updatedAt: iso(t.updatedAt),
});

export const templateHandlers: Pick<
  Handlers,
  "Templates_create" | "Templates_list" | "Templates_get" | "Templates_update" | "Templates_delete"
> = {
  async Templates_create({ db, account, body }) {
    const row = await createTemplate(db, account.id, { name: body.name, body: body.body, category: body.category ?? null });
    return { status: 201, body: toTemplate(row) };
  },

  async Templates_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listTemplates(db, account.id, w));
    return { status: 200, body: { data: items.map(toTemplate), nextCursor } };
  },

  async Templates_get({ db, account, path }) {
    const row = await getTemplate(db, account.id, path.templateId);
    if (!row) throw notFound("Template");
    return { status: 200, body: toTemplate(row) };
  },

  async Templates_update({ db, account, path, body }) {
    return { status: 200, body: toTemplate(await changeTemplate(db, account.id, path.templateId, body)) };
  },

  async Templates_delete({ db, account, path }) {
    await removeTemplate(db, account.id, path.templateId);
    return { status: 204 };
  },
};
