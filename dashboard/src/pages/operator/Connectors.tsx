// Operator → Connectors: the carrier links with their live state (refreshed every few seconds), made, switched
// on and off, and deleted here; every worker applies a change within seconds (docs/ROUTING.md).
import { useState } from "preact/hooks";
import { ok, type Schemas } from "../../api.js";
import { formatTime } from "../../time.js";
import { ListTable, OrDash, LoadedRows } from "../../listTable.js";
import { SubmitRow } from "../../forms.js";
import {
  ConfirmDialog,
  Field,
  fieldError,
  Notice,
  ProblemMessage,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  usePolling,
  useSession,
} from "../../ui.js";
import { Identifier } from "../../identifier.js";

type Connector = Schemas["Connector"];

const STATE_WORDS: Record<Connector["state"], string> = {
  bound: "Bound",
  binding: "Binding…",
  down: "Down",
  disabled: "Disabled",
};

export function Connectors() {
  const { client, canWrite } = useSession();
  const [notice, setNotice] = useNotice();
  const [deleting, setDeleting] = useState<Connector | undefined>();
  const list = useAsync(async () => (await ok(client.GET("/api/v1/connectors"))).data, []);
  usePolling(() => list.reload(), 3_000, true);
  const toggle = useAction(async (c: Connector) => {
    await ok(
      client.PATCH("/api/v1/connectors/{connectorId}", { params: { path: { connectorId: c.connectorId } }, body: { enabled: !c.enabled } }),
    );
    setNotice(`Connector “${c.name}” ${c.enabled ? "disabled: its sessions close" : "enabled: its sessions open"} within seconds.`);
    await list.reload();
  });
  return (
    <section>
      <h1 tabIndex={-1}>Connectors</h1>
      <p class="muted">
        The carrier links messages leave by, as the workers report them (refreshed every few seconds). The routing table sends each message
        to one of them.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ProblemMessage error={toggle.error} prefix="Connector not changed" />
      {list.data?.some((c) => c.type !== "simulator") && (
        <p class="muted" data-note="simulator">
          Simulated inbound messages are refused while a carrier connector is enabled or named by a route, even while it is down, so that a
          forged STOP or HELP never makes a real SMSC send.
        </p>
      )}
      <LoadedRows
        list={list}
        loading="connectors"
        errorPrefix="Could not load the connectors"
        empty="No connectors: nothing can be sent until one is made and routed to."
      >
        {(rows) => (
          <ListTable
            caption="Connectors, oldest first, with their live state"
            rows={rows}
            rowKey={(c) => c.connectorId}
            rowAttributes={(c) => ({ "data-connector": c.name })}
            columns={[
              {
                label: "Name",
                cell: (c) => (
                  <>
                    {c.name}
                    <small class="muted block">
                      <Identifier id={c.connectorId} label={`id of connector ${c.name}`} />
                    </small>
                  </>
                ),
              },
              { label: "Type", cell: (c) => (c.type === "smpp" && c.smpp ? `SMPP ${c.smpp.host}:${c.smpp.port}` : "Simulator") },
              {
                label: "State",
                cell: (c) => (
                  <>
                    <span class={`chip chip-${c.state}`}>{STATE_WORDS[c.state]}</span>
                    <small class="muted block">since {formatTime(c.stateSince)}</small>
                  </>
                ),
              },
              {
                label: "Sessions bound",
                cell: (c) => (
                  <>
                    {c.sessionsBound}
                    {c.smpp ? ` of ${c.smpp.sessions} per worker` : ""}
                  </>
                ),
              },
              {
                label: "Taken / refused / unknown",
                cell: (c) =>
                  `${c.counters.accepted.toLocaleString()} / ${c.counters.refused.toLocaleString()} / ${c.counters.unknown.toLocaleString()}`,
              },
              { label: "Cap", cell: (c) => (c.maxSegmentsPerSecond === null ? "none" : `${c.maxSegmentsPerSecond} segments a second`) },
              { label: "Last error", cell: (c) => <OrDash value={c.lastError} /> },
            ]}
            actions={(c) =>
              canWrite && (
                <>
                  <button
                    type="button"
                    class="small"
                    disabled={toggle.busy}
                    onClick={() => void toggle.run(c)}
                    aria-label={`${c.enabled ? "Disable" : "Enable"} connector ${c.name}`}
                  >
                    {c.enabled ? "Disable" : "Enable"}
                  </button>{" "}
                  <button type="button" class="danger small" onClick={() => setDeleting(c)} aria-label={`Delete connector ${c.name}`}>
                    Delete
                  </button>
                </>
              )
            }
          />
        )}
      </LoadedRows>
      {canWrite && (
        <NewConnector
          onMade={async (c) => {
            setNotice(`Connector “${c.name}” made: route to it on the Routing page.`);
            await list.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete connector ${deleting?.name ?? ""}?`}
        confirmLabel="Delete connector"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/connectors/{connectorId}", { params: { path: { connectorId: deleting!.connectorId } } }));
          setNotice(`Connector “${deleting!.name}” deleted.`);
          await list.reload();
        }}
      >
        <p>Its sessions close. A connector a route names cannot be deleted: take it out of the routing table first.</p>
      </ConfirmDialog>
    </section>
  );
}

function NewConnector({ onMade }: { onMade: (c: Connector) => Promise<void> }) {
  const { client } = useSession();
  const [f, setF] = useState({
    name: "",
    type: "smpp" as "smpp" | "simulator",
    host: "",
    port: "2775",
    systemId: "",
    password: "",
    sessions: "1",
    cap: "",
  });
  const set = (k: keyof typeof f) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  const make = useAction(async () => {
    const smpp = {
      host: f.host.trim(),
      port: Number(f.port),
      systemId: f.systemId.trim(),
      password: f.password,
      sessions: Number(f.sessions),
    };
    const made = await ok(
      client.POST("/api/v1/connectors", {
        body: {
          name: f.name.trim(),
          type: f.type,
          ...(f.type === "smpp" ? { smpp } : {}),
          maxSegmentsPerSecond: f.cap.trim() ? Number(f.cap) : null,
        },
      }),
    );
    setF({ ...f, name: "", host: "", systemId: "", password: "", cap: "" });
    await onMade(made);
  });
  return (
    <TitledForm titleId="new-connector-title" title="Make a connector" onSubmit={() => void make.run()}>
      <div class="grid-2">
        <Field id="connector-name" label="Connector name" error={fieldError(make.error, "/body/name")}>
          <input id="connector-name" required maxLength={64} value={f.name} onInput={set("name")} />
        </Field>
        <Field id="connector-type" label="Type">
          <select id="connector-type" value={f.type} onChange={set("type")}>
            <option value="smpp">SMPP</option>
            <option value="simulator">Simulator (sends nothing)</option>
          </select>
        </Field>
        {f.type === "smpp" && (
          <>
            <Field id="connector-host" label="SMSC host" error={fieldError(make.error, "/body/smpp/host")}>
              <input id="connector-host" required value={f.host} onInput={set("host")} />
            </Field>
            <Field id="connector-port" label="Port" error={fieldError(make.error, "/body/smpp/port")}>
              <input id="connector-port" type="number" min={1} max={65535} required value={f.port} onInput={set("port")} />
            </Field>
            <Field id="connector-system-id" label="System ID" error={fieldError(make.error, "/body/smpp/systemId")}>
              <input id="connector-system-id" required maxLength={15} value={f.systemId} onInput={set("systemId")} />
            </Field>
            <Field id="connector-password" label="Password" error={fieldError(make.error, "/body/smpp/password")}>
              <input
                id="connector-password"
                type="password"
                maxLength={8}
                autoComplete="off"
                value={f.password}
                onInput={set("password")}
              />
            </Field>
            <Field id="connector-sessions" label="Sessions (binds)" error={fieldError(make.error, "/body/smpp/sessions")}>
              <input id="connector-sessions" type="number" min={1} max={8} value={f.sessions} onInput={set("sessions")} />
            </Field>
          </>
        )}
        <Field
          id="connector-cap"
          label="Segments a second (optional)"
          hint="Empty: no cap"
          error={fieldError(make.error, "/body/maxSegmentsPerSecond")}
        >
          <input id="connector-cap" type="number" min={1} value={f.cap} aria-describedby="connector-cap-hint" onInput={set("cap")} />
        </Field>
      </div>
      <SubmitRow action={make} failed="Connector not made">
        Create connector
      </SubmitRow>
    </TitledForm>
  );
}
