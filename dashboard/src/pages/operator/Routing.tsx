// Operator → Routing: the routing table (the first route that matches a message is its route, judged when it is
// sent), edited as a form (routesForm.tsx) or, one click away, as the document `PUT /routes` takes
// (configuration as code), and what a message would do now, beside it.
import { useEffect, useState } from "preact/hooks";
import { ApiProblem, ok, type Schemas } from "../../api.js";
import { bound, fieldsOf, InputField, Options, SelectField, SubmitRow, TextAreaField } from "../../forms.js";
import { Loading, Notice, ProblemMessage, TitledForm, useAction, useAsync, useNotice, useSession } from "../../ui.js";
import { fromDraft, RoutesForm, toDraft, type DraftRoute } from "./routesForm.js";
import { useAccountNames, type AccountName } from "./accountNames.js";

type Route = Schemas["Route"];

/** What a route matches, in words; accounts by name where their names are known. */
const matchWords = (m: Route["match"], accountName: (id: string) => string | undefined) => {
  const parts = Object.entries(m)
    .filter(([, v]) => Array.isArray(v) && v.length > 0)
    .map(([k, v]) => `${k}: ${(v as string[]).map((x) => (k === "accountIds" ? (accountName(x) ?? x) : x)).join(", ")}`);
  return parts.length > 0 ? parts.join("; ") : "every message";
};

export function Routing() {
  const { client, canWrite } = useSession();
  const table = useAsync(async () => ok(client.GET("/api/v1/routes")), []);
  const connectors = useAsync(async () => (await ok(client.GET("/api/v1/connectors"))).data, []);
  const [text, setText] = useState("");
  const [drafts, setDrafts] = useState<DraftRoute[]>([]);
  const [asJson, setAsJson] = useState(false);
  const [notice, setNotice] = useNotice();
  useEffect(() => {
    if (!table.data) return;
    setText(JSON.stringify(table.data.routes, null, 2));
    setDrafts(table.data.routes.map(toDraft));
  }, [table.data?.version]);
  const nameOf = (id: string) => connectors.data?.find((c) => c.connectorId === id)?.name ?? id;
  const { accounts, nameOf: accountName } = useAccountNames();
  const parsed = (): Route[] => {
    try {
      return JSON.parse(text) as Route[];
    } catch (error) {
      throw new ApiProblem(400, { code: "validation_failed", detail: `The routes are not JSON: ${(error as Error).message}` });
    }
  };
  const switchTo = (json: boolean) => {
    // The edits so far go with it: the form's routes as JSON, or the JSON's as the form (if it parses).
    if (json) setText(JSON.stringify(drafts.map(fromDraft), null, 2));
    else {
      try {
        setDrafts((JSON.parse(text) as Route[]).map(toDraft));
      } catch {
        setNotice("The JSON does not parse: the form shows the table as last saved.");
      }
    }
    save.clearError();
    setAsJson(json);
  };
  const save = useAction(async () => {
    const routes = asJson ? parsed() : drafts.map(fromDraft);
    const saved = await ok(client.PUT("/api/v1/routes", { body: { version: table.data!.version, routes } }));
    table.setData(saved);
    setNotice(
      `Routing table saved as version ${saved.version}: every worker routes by it within a second, waiting messages too.${
        saved.warnings.length ? " Check the warnings below." : ""
      }`,
    );
  });
  return (
    <section>
      <h1 tabIndex={-1}>Routing</h1>
      <p class="muted">
        The first route that matches a message is its route, judged when it is sent. Among its pool&apos;s connectors that are bound, one is
        chosen by weight; when a carrier refuses the message it tries the others, then the fallback, each once.
      </p>
      {notice && <Notice>{notice}</Notice>}
      {table.loading && !table.data && <Loading what="the routing table" />}
      <ProblemMessage error={table.error} prefix="Could not load the routing table" />
      {table.data && table.data.warnings.length > 0 && (
        <div class="notice notice-info" role="status" data-warnings>
          <p>Routes that can never match:</p>
          <ul>
            {table.data.warnings.map((w) => (
              <li key={w.path}>
                Route {Number(w.path.split("/")[2]) + 1} ({table.data!.routes[Number(w.path.split("/")[2])]?.name}): {w.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {table.data && (
        <>
          <table class="table" data-version={table.data.version}>
            <caption>Routing table, version {table.data.version}</caption>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Matches</th>
                <th scope="col">Pool (weight)</th>
                <th scope="col">Fallback</th>
              </tr>
            </thead>
            <tbody>
              {table.data.routes.length === 0 && (
                <tr>
                  <td colSpan={4}>No routes: every message fails no_route.</td>
                </tr>
              )}
              {table.data.routes.map((r) => (
                <tr key={r.name} data-route={r.name}>
                  <td data-label="Route">{r.name}</td>
                  <td data-label="Matches">{matchWords(r.match, accountName)}</td>
                  <td data-label="Pool (weight)">{r.connectors.map((c) => `${nameOf(c.connectorId)} (${c.weight ?? 1})`).join(", ")}</td>
                  <td data-label="Fallback">{(r.fallback ?? []).map(nameOf).join(", ") || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="routing-layout">
            {canWrite && (
              <TitledForm titleId="routes-edit-title" title="Edit the routing table" onSubmit={() => void save.run()}>
                <div class="toolbar">
                  <button type="button" aria-pressed={asJson} onClick={() => switchTo(!asJson)}>
                    {asJson ? "Edit as a form" : "Edit as JSON"}
                  </button>
                </div>
                {asJson ? (
                  <TextAreaField
                    id="routes-json"
                    label="Routes (JSON)"
                    hint="The whole table, in order, as PUT /api/v1/routes takes it; saved only if nobody changed it since it was loaded"
                    class="mono"
                    rows={14}
                    spellcheck={false}
                    {...bound(text, setText, save.error, "/body/routes")}
                  />
                ) : (
                  <RoutesForm
                    routes={drafts}
                    connectors={(connectors.data ?? []).map((c) => ({ connectorId: c.connectorId, name: c.name }))}
                    accounts={accounts}
                    onChange={setDrafts}
                  />
                )}
                {save.error?.problem.errors && save.error.problem.errors.length > 0 && (
                  <ul class="problem-list" data-testid="route-errors">
                    {save.error.problem.errors.map((e) => (
                      <li key={e.path}>
                        <code>{e.path}</code>: {e.message}
                      </li>
                    ))}
                  </ul>
                )}
                <SubmitRow action={save} failed="Routing table not saved">
                  Save routing table
                </SubmitRow>
              </TitledForm>
            )}
            <Explain nameOf={nameOf} accounts={accounts} />
          </div>
        </>
      )}
    </section>
  );
}

function Explain({ nameOf, accounts }: { nameOf: (id: string) => string; accounts: AccountName[] }) {
  const { client } = useSession();
  const [f, setF] = useState({ to: "", from: "", accountId: "" });
  const [answer, setAnswer] = useState<Schemas["ExplainedRoute"] | undefined>();
  const body = { to: f.to.trim(), from: f.from.trim(), accountId: f.accountId };
  const explain = useAction(async () => setAnswer(await ok(client.POST("/api/v1/routes/explain", { body }))));
  const field = fieldsOf(f, setF, explain.error);
  return (
    <TitledForm titleId="explain-title" title="What would a message do now?" onSubmit={() => void explain.run()}>
      <div class="grid-2">
        <InputField id="explain-to" label="To" type="tel" required {...field("to")} />
        <InputField id="explain-from" label="From" required {...field("from")} />
        <SelectField id="explain-account" label="Account" required {...field("accountId")}>
          <option value="">Choose an account</option>
          <Options items={accounts} value={(a) => a.accountId} label={(a) => a.name} />
        </SelectField>
      </div>
      <ProblemMessage error={explain.error} prefix="Could not explain" />
      <div class="actions">
        <button type="submit" disabled={explain.busy}>
          Explain route
        </button>
      </div>
      {answer && (
        <div data-testid="explained" role="status">
          <p>
            {answer.route === null ? (
              <strong>No route matches: the message would fail no_route.</strong>
            ) : (
              <>
                Route <strong>{answer.route}</strong>, as <strong>{answer.sender}</strong>:
              </>
            )}
          </p>
          <ol>
            {answer.candidates.map((c) => (
              <li key={c.connectorId}>
                {nameOf(c.connectorId)}: {c.available ? "available" : `not available (${c.reason})`}
              </li>
            ))}
          </ol>
        </div>
      )}
    </TitledForm>
  );
}
