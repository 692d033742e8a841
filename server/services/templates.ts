// Templates (docs/API.md, "Templates"): their writes with the contract's problems, and the text a send or a
// campaign makes from one. A request gives its own text or a template with variables, exactly one of the two.
import type { Knex } from "knex";
import { isUniqueViolation } from "../db/errors.js";
import {
  deleteTemplateUnlessUsed,
  getTemplates,
  insertTemplate,
  updateTemplate,
  type TemplateFields,
  type TemplateRow,
} from "../db/templates.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { renderTemplate } from "../domain/templates.js";
import type { Category } from "../domain/sendingPolicy.js";

const templateExists = (name: string | undefined) =>
  new DomainError("template_exists", `The account has a template named ${JSON.stringify(name)} already.`, {
    errors: [{ path: "/body/name", message: "taken" }],
  });

export async function createTemplate(db: Knex, accountId: string, fields: TemplateFields): Promise<TemplateRow> {
  try {
    return await insertTemplate(db, accountId, fields);
  } catch (error) {
    if (isUniqueViolation(error, "templates_account_name_key")) throw templateExists(fields.name);
    throw error;
  }
}

export async function changeTemplate(
  db: Knex,
  accountId: string,
  templateId: string,
  changes: Partial<TemplateFields>,
): Promise<TemplateRow> {
  try {
    const row = await updateTemplate(db, accountId, templateId, changes);
    if (!row) throw notFound("Template");
    return row;
  } catch (error) {
    if (isUniqueViolation(error, "templates_account_name_key")) throw templateExists(changes.name);
    throw error;
  }
}

export async function removeTemplate(db: Knex, accountId: string, templateId: string): Promise<void> {
  const outcome = await deleteTemplateUnlessUsed(db, accountId, templateId);
  if (outcome === "not_found") throw notFound("Template");
  if (outcome === "in_use")
    throw new DomainError(
      "template_in_use",
      "The template is used by a campaign that has not finished or a message still waiting to be sent: delete it once they are done.",
    );
}

/** A request's own text, or a template and its variables. */
export interface TextOrTemplate {
  text?: string;
  templateId?: string;
  variables?: Record<string, string>;
}

/** The text a request sends, the template it came from and that template's category. */
export interface MadeText {
  text: string;
  templateId: string | null;
  category: Category | undefined;
}

const templateNotFound = (path: string) =>
  new DomainError("template_not_found", "templateId names no template of this account.", {
    errors: [{ path, message: "no such template" }],
  });

/**
 * The text of a request that has its own (`textField`: `body`, or a campaign's `message`) or names a template
 * (found in `templates`, the account's templates the caller loaded). `keep` leaves placeholders to fill later.
 */
export function madeText(
  request: TextOrTemplate,
  templates: Map<string, TemplateRow>,
  opts: { path: string; textField: string; keep?: (name: string) => boolean },
): MadeText {
  if ((request.text === undefined) === (request.templateId === undefined))
    throw invalidField(`${opts.path}/${opts.textField}`, `or templateId: exactly one of the two`);
  if (request.templateId === undefined) {
    if (request.variables !== undefined) throw invalidField(`${opts.path}/variables`, "needs templateId");
    return { text: request.text!, templateId: null, category: undefined };
  }
  const template = templates.get(request.templateId);
  if (!template) throw templateNotFound(`${opts.path}/templateId`);
  const text = renderTemplate(template.body, request.variables ?? {}, { path: opts.path, keep: opts.keep });
  if ([...text].length > 1600) throw invalidField(`${opts.path}/variables`, "make the text longer than 1600 characters");
  return { text, templateId: template.id, category: template.category ?? undefined };
}

/** The account's templates the requests name, in one query. */
export async function templatesOf(db: Knex, accountId: string, requests: TextOrTemplate[]): Promise<Map<string, TemplateRow>> {
  return getTemplates(db, accountId, [...new Set(requests.flatMap((r) => (r.templateId === undefined ? [] : [r.templateId])))]);
}

/** A send as POST /messages (or a batch item) gives it: its own body, or a template and its variables. */
interface TemplateFieldsOfSend {
  body?: string;
  templateId?: string;
  variables?: Record<string, string>;
  category?: Category;
}

/** The send with its text made: the template's category unless the send gives one, and the template's id. */
export function sendWithText<R extends TemplateFieldsOfSend>(
  request: R,
  templates: Map<string, TemplateRow>,
  path: string,
): Omit<R, "body" | "variables"> & { body: string; templateId: string | null } {
  const { body, variables, ...rest } = request;
  const made = madeText({ text: body, templateId: request.templateId, variables }, templates, { path, textField: "body" });
  return { ...rest, body: made.text, templateId: made.templateId, category: request.category ?? made.category };
}
