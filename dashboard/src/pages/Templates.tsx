// Settings → Templates: the account's message texts kept for reuse, with their placeholders; making one,
// changing one in place, deleting one (refused, with the reason, while a waiting message or an unfinished
// campaign uses it). The send and campaign forms use them ("Use a template": dashboard/src/templates.tsx).
import { useState } from "preact/hooks";
import { ok } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { placeholderProblem, type Template } from "../templates.js";
import { InputField, SubmitRow } from "../forms.js";
import { ConfirmDialog, Field, fieldError, Notice, TitledForm, useAction, useNotice, useSession, ToggledPanel } from "../ui.js";

type Category = "" | "marketing" | "transactional";

function TemplateForm({
  id,
  title,
  initial,
  onSave,
}: {
  id: string;
  title: string;
  initial?: Template;
  onSave: (body: { name: string; body: string; category: Category }) => Promise<void>;
}) {
  const [name, setName] = useState(initial?.name ?? "");
  const [body, setBody] = useState(initial?.body ?? "");
  const [category, setCategory] = useState<Category>(initial?.category ?? "");
  const [braces, setBraces] = useState<string | undefined>();
  const save = useAction(async () => {
    await onSave({ name: name.trim(), body, category });
    if (!initial) {
      setName("");
      setBody("");
      setCategory("");
    }
  });
  const err = (path: string) => fieldError(save.error, path);
  return (
    <TitledForm
      titleId={`${id}-title`}
      title={title}
      plain={!!initial}
      heading={initial ? "h3" : "h2"}
      onSubmit={() => {
        const problem = placeholderProblem(body);
        setBraces(problem);
        if (problem) document.getElementById(`${id}-body`)?.focus();
        else void save.run();
      }}
    >
      <InputField id={`${id}-name`} label="Name" error={err("/body/name")} required maxLength={100} value={name} onValue={setName} />
      <Field
        id={`${id}-body`}
        label="Text"
        hint="Placeholders in double braces: {{date}}; in a campaign also {{firstName}}, {{lastName}}, {{custom.key}}"
        error={braces ?? err("/body/body")}
      >
        <textarea
          id={`${id}-body`}
          required
          rows={3}
          maxLength={1600}
          value={body}
          aria-invalid={braces ? true : undefined}
          aria-describedby={`${id}-body-hint${braces ? ` ${id}-body-error` : ""}`}
          onInput={(e) => {
            setBody(e.currentTarget.value);
            setBraces(undefined);
          }}
        />
      </Field>
      <Field id={`${id}-category`} label="Category" error={err("/body/category")}>
        <select id={`${id}-category`} value={category} onChange={(e) => setCategory(e.currentTarget.value as Category)}>
          <option value="">As each send says</option>
          <option value="transactional">transactional</option>
          <option value="marketing">marketing (held by quiet hours)</option>
        </select>
      </Field>
      <SubmitRow action={save} failed="Not saved">
        {initial ? "Save template" : "Create template"}
      </SubmitRow>
    </TitledForm>
  );
}

export function Templates() {
  const { client, canWrite } = useSession();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<Template | undefined>();
  const [notice, setNotice] = useNotice();
  const list = usePagedList<Template>(async (page) => ok(client.GET("/api/v1/templates", { params: { query: page } })), [], 50);
  const asBody = (b: { name: string; body: string; category: Category }) => ({ ...b, category: b.category || null });
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Templates</h1>
      <p class="muted">
        Message texts kept for reuse. Pick one in the send and campaign forms (&ldquo;Use a template&rdquo;) and fill its placeholders.
      </p>
      {canWrite && (
        <>
          <ToggledPanel label="New template" id="template-panel" open={creating} onToggle={setCreating}>
            <TemplateForm
              id="new-template"
              title="New template"
              onSave={async (b) => {
                const t = await ok(client.POST("/api/v1/templates", { body: asBody(b) }));
                setNotice(`Template “${t.name}” created.`);
                await list.reload();
              }}
            />
          </ToggledPanel>
        </>
      )}
      {notice && <Notice>{notice}</Notice>}
      <section class="card" aria-labelledby="templates-title">
        <h2 id="templates-title">Templates</h2>
        <PagedRows list={list} noun="templates" one="template" errorPrefix="Could not load the templates" empty="No templates yet.">
          {(items) => (
            <ul class="rows" aria-label="Templates" ref={list.rowsRef}>
              {items.map((t) =>
                editing === t.templateId ? (
                  <li key={t.templateId} class="row">
                    <TemplateForm
                      id={`edit-${t.templateId}`}
                      title={`Edit “${t.name}”`}
                      initial={t}
                      onSave={async (b) => {
                        const saved = await ok(
                          client.PATCH("/api/v1/templates/{templateId}", {
                            params: { path: { templateId: t.templateId } },
                            body: asBody(b),
                          }),
                        );
                        setEditing(undefined);
                        setNotice(`Template “${saved.name}” saved.`);
                        list.update((xs) => xs.map((x) => (x.templateId === saved.templateId ? saved : x)));
                      }}
                    />
                    <button type="button" onClick={() => setEditing(undefined)}>
                      Cancel
                    </button>
                  </li>
                ) : (
                  <li key={t.templateId} class="row" data-template={t.name}>
                    <div class="row-main">
                      <span class="row-title">{t.name}</span>
                      {t.category && <span class="chip">{t.category}</span>}
                      <p class="row-text">{t.body}</p>
                    </div>
                    <div class="row-meta">
                      <span>{t.variables.length === 0 ? "No placeholders" : `Placeholders: ${t.variables.join(", ")}`}</span>
                      {placeholderProblem(t.body) && <span class="field-error">{placeholderProblem(t.body)}</span>}
                    </div>
                    {canWrite && (
                      <div class="row-actions">
                        <button type="button" onClick={() => setEditing(t.templateId)} aria-label={`Edit template ${t.name}`}>
                          Edit
                        </button>
                        <button type="button" class="danger" onClick={() => setDeleting(t)} aria-label={`Delete template ${t.name}`}>
                          Delete
                        </button>
                      </div>
                    )}
                  </li>
                ),
              )}
            </ul>
          )}
        </PagedRows>
      </section>
      <ConfirmDialog
        open={!!deleting}
        title={`Delete template “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete template"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/templates/{templateId}", { params: { path: { templateId: deleting!.templateId } } }));
          setNotice(`Template “${deleting!.name}” deleted.`);
          list.update((xs) => xs.filter((x) => x.templateId !== deleting!.templateId));
        }}
      >
        <p>Messages and campaigns already made from it keep their text. A template still in use cannot be deleted.</p>
      </ConfirmDialog>
    </section>
  );
}
