// Templates in the send and campaign forms: "Use a template" picks one of the account's, shows a field for each
// of its placeholders and the text it makes; the form then sends `templateId` and `variables` instead of its own
// text. In a campaign the contact's own placeholders (firstName, lastName, custom.key) are left for each contact.
import type { ComponentChildren } from "preact";
import { fillVariables, templateVariables } from "../../common/templates.js";
import { PLACEHOLDER_NAME } from "../../common/personalise.js";
import { ok, type Schemas } from "./api.js";
import { fieldError, useAsync, useSession } from "./ui.js";
import { InputField, Options, SelectField } from "./forms.js";
import type { ApiProblem } from "./api.js";

export type Template = Schemas["Template"];

/** The account's templates (the newest 100), for a picker. */
export function useTemplates() {
  const { client } = useSession();
  return useAsync(async () => (await ok(client.GET("/api/v1/templates", { params: { query: { limit: 100 } } }))).data, []);
}

export interface TemplateChoice {
  templateId: string;
  values: Record<string, string>;
}

const VALID_PLACEHOLDER = /\{\{\s*[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?\s*\}\}/g;

/**
 * Braces in a text that make no placeholder, named as written, or undefined: an unclosed `{{firstName`, a `}}`
 * that closes nothing, a `{{first name}}` whose name is none (the API would keep all of them as plain text, and
 * the template would say "No placeholders").
 */
export function placeholderProblem(body: string): string | undefined {
  // The placeholders blanked out (same length, so positions stay), what is left is checked.
  const rest = body.replace(VALID_PLACEHOLDER, (m) => " ".repeat(m.length));
  const open = rest.indexOf("{{");
  const close = rest.indexOf("}}");
  if (open < 0 && close < 0) return undefined;
  if (open >= 0 && (close < 0 || open < close)) {
    const next = rest.indexOf("{{", open + 2);
    if (close >= 0 && (next < 0 || close < next)) {
      return `“${body.slice(open, close + 2)}” is not a placeholder: a name is letters, digits and _ (or custom.key), e.g. {{firstName}}`;
    }
    const name = /^\{\{\s*([A-Za-z0-9_.]{0,30})/.exec(rest.slice(open))![1]!;
    return `“{{${name}” is not closed: write {{${name || "name"}}}`;
  }
  const before = body.slice(Math.max(0, close - 12), close).trimStart();
  return `“${before}}}” closes no placeholder: open it with {{`;
}

/** The placeholders the person fills: all of a send's; a campaign's but the contact's own. */
export const variablesToFill = (t: Template, campaign: boolean) =>
  templateVariables(t.body).filter((name) => !(campaign && PLACEHOLDER_NAME.test(name)));

/** The text the choice makes (a campaign's per-contact placeholders kept), or what it still lacks. */
export function madeText(t: Template, values: Record<string, string>, campaign: boolean): string {
  const filled = fillVariables(t.body, values, (name) => campaign && PLACEHOLDER_NAME.test(name));
  return filled.missing === undefined ? filled.text : `(fill {{${filled.missing}}})`;
}

/** The template select, then one field per placeholder to fill. `children` is the form's own text field, shown without a template. */
export function TemplatePicker({
  id,
  templates,
  choice,
  onChoice,
  campaign,
  error,
  children,
}: {
  id: string;
  templates: Template[];
  choice: TemplateChoice | undefined;
  onChoice: (c: TemplateChoice | undefined) => void;
  campaign: boolean;
  error: ApiProblem | undefined;
  children: ComponentChildren;
}) {
  const chosen = choice && templates.find((t) => t.templateId === choice.templateId);
  return (
    <>
      {templates.length > 0 && (
        <SelectField
          id={`${id}-template`}
          label="Use a template"
          error={fieldError(error, "/body/templateId")}
          value={choice?.templateId ?? ""}
          onValue={(templateId) => onChoice(templateId ? { templateId, values: {} } : undefined)}
        >
          <option value="">No: write the text</option>
          <Options items={templates} value={(t) => t.templateId} label={(t) => t.name} />
        </SelectField>
      )}
      {!chosen && children}
      {chosen && choice && (
        <fieldset>
          <legend>Template “{chosen.name}”</legend>
          {variablesToFill(chosen, campaign).map((name) => (
            <InputField
              key={name}
              id={`${id}-var-${name}`}
              label={`{{${name}}}`}
              error={fieldError(error, `/body/variables/${name}`)}
              required
              maxLength={500}
              value={choice.values[name] ?? ""}
              onValue={(value) => onChoice({ ...choice, values: { ...choice.values, [name]: value } })}
            />
          ))}
          <p class="bubble" data-testid={`${id}-template-text`}>
            {madeText(chosen, choice.values, campaign)}
          </p>
        </fieldset>
      )}
    </>
  );
}
