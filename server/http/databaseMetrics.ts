// Gauges read from the database at scrape time. Workers serve no HTTP, so what they do is measured where it
// lands, in the job table: every API process reports the same cluster-wide values, whichever one is scraped.
// Each is one query: the job table's on its claim and finalized indexes, the throughput queue's a scan of the
// (narrow) queue; ops/alerts.yml alerts on some of them.
import { Counter, Gauge, type Registry } from "prom-client";
import type { Db } from "../db/knex.js";
import { readQueueHealth, type QueueHealth } from "../db/jobs/index.js";
import { readThroughputBacklog, type ThroughputBacklog } from "../db/throttledSends.js";
import { connectorViews, type ConnectorView } from "../routing/index.js";
import { readSmppServerHealth, type SmppServerHealth } from "../db/smppOutbox.js";
import { readSmppServerCounters, type SubmitCounts } from "../db/smppServerCounters.js";
import { BIND_STALE_SECONDS } from "../operator/index.js";

const SCRAPE_TIMEOUT_MS = 2_000;

export const DATABASE_METRICS = [
  "sms_database_up",
  "sms_oldest_due_message_seconds",
  "sms_receipt_deliveries_retrying",
  "sms_receipt_deliveries_given_up_last_hour",
  "sms_webhooks_disabled",
  "sms_throughput_waiting_messages",
  "sms_throughput_oldest_waiting_seconds",
  "sms_connector_up",
  "sms_smpp_client_binds",
  "sms_smpp_client_waiting",
  "sms_smpp_client_oldest_waiting_seconds",
  "sms_smpp_client_submits_total",
] as const;

type Reading = QueueHealth & {
  throughput: ThroughputBacklog[];
  connectors: ConnectorView[];
  smpp: SmppServerHealth;
  smppSubmits: SubmitCounts[];
};
const read = async (db: Db): Promise<Reading> => {
  const [health, throughput, connectors, smpp, smppSubmits] = await Promise.all([
    readQueueHealth(db, SCRAPE_TIMEOUT_MS),
    readThroughputBacklog(db, SCRAPE_TIMEOUT_MS),
    connectorViews(db),
    readSmppServerHealth(db, SCRAPE_TIMEOUT_MS, BIND_STALE_SECONDS),
    readSmppServerCounters(db, SCRAPE_TIMEOUT_MS),
  ]);
  return { ...health, throughput, connectors, smpp, smppSubmits };
};

export function registerDatabaseMetrics(registry: Registry, db: Db): void {
  // One query per scrape, shared by the gauges (prom-client calls each collect() in turn).
  let pending: Promise<Reading | undefined> | undefined;
  const reading = () =>
    (pending ??= read(db)
      .catch(() => undefined)
      .finally(() => setImmediate(() => (pending = undefined))));

  // Each gauge reads one field of the shared reading; without a reading (the database did not answer) only
  // sms_database_up changes, to 0, and the others keep their last value.
  const gauges: { name: (typeof DATABASE_METRICS)[number]; help: string; value: (r: Reading | undefined) => number | undefined }[] = [
    { name: "sms_database_up", help: "1 when this process reached PostgreSQL at the last scrape, else 0", value: (r) => (r ? 1 : 0) },
    {
      name: "sms_oldest_due_message_seconds",
      help: "How long the oldest due, unclaimed send job has waited past its time (0 when none)",
      value: (r) => r?.oldestDueSendSeconds,
    },
    {
      name: "sms_receipt_deliveries_retrying",
      help: "Delivery receipts whose last attempt failed, waiting for a retry",
      value: (r) => r?.receiptsRetrying,
    },
    {
      name: "sms_receipt_deliveries_given_up_last_hour",
      help: "Delivery receipts that failed every attempt, in the last hour",
      value: (r) => r?.receiptsGivenUpLastHour,
    },
    {
      name: "sms_webhooks_disabled",
      help: "Webhooks disabled after a long run of failed deliveries, not enabled again yet",
      value: (r) => r?.webhooksDisabled,
    },
  ];
  for (const { name, help, value } of gauges) {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const v = value(await reading());
        if (v !== undefined) this.set(v);
      },
    });
  }

  /** Gauges of one series per label value: each a field of the rows `rows` reads. */
  const perLabel = <R extends { waiting: number; oldestSeconds: number }>(
    label: string,
    labelOf: (row: R) => string,
    rows: (r: Reading) => R[],
    gauges: { name: (typeof DATABASE_METRICS)[number]; help: string; value: (row: R) => number }[],
  ) => {
    for (const { name, help, value } of gauges)
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [registry],
        async collect() {
          const r = await reading();
          for (const row of r ? rows(r) : []) this.set({ [label]: labelOf(row) }, value(row));
        },
      });
  };

  // The throughput queue (services/sendingPolicy/throughputPacer.ts), one series per priority.
  perLabel<ThroughputBacklog>(
    "priority",
    (b) => b.priority,
    (r) => r.throughput,
    [
      {
        name: "sms_throughput_waiting_messages",
        help: "Messages waiting their turn for a throughput cap (an account's maxSegmentsPerSecond or the link's), by priority",
        value: (b) => b.waiting,
      },
      {
        name: "sms_throughput_oldest_waiting_seconds",
        help: "How long the oldest message waiting for a throughput cap has waited past its scheduledAt (0 when none), by priority",
        value: (b) => b.oldestSeconds,
      },
    ],
  );

  // Each connector as its workers report it (routing/connectorAdmin.ts): 1 bound, else 0; a disabled one is absent.
  new Gauge({
    name: "sms_connector_up",
    help: "1 when at least one session of the connector is bound in some worker, 0 while it binds or is down (disabled connectors are not shown)",
    labelNames: ["connector"] as const,
    registers: [registry],
    async collect() {
      const r = await reading();
      if (!r) return;
      this.reset();
      for (const c of r.connectors) if (c.state !== "disabled") this.set({ connector: c.row.name }, c.state === "bound" ? 1 : 0);
    },
  });

  // The SMPP server for client applications (docs/SMPP.md, "For client applications"), across its processes.
  new Gauge({
    name: "sms_smpp_client_binds",
    help: "SMPP client applications' binds open now, on every SMPP server process, by account",
    labelNames: ["account"] as const,
    registers: [registry],
    async collect() {
      const r = await reading();
      if (!r) return;
      this.reset();
      for (const b of r.smpp.binds) this.set({ account: b.accountId }, b.binds);
    },
  });
  perLabel<SmppServerHealth["waiting"][number]>(
    "kind",
    (w) => w.kind,
    (r) => r.smpp.waiting,
    [
      {
        name: "sms_smpp_client_waiting",
        help: "Receipts and inbound messages waiting for a receiver bind of their SMPP client application, by kind",
        value: (w) => w.waiting,
      },
      {
        name: "sms_smpp_client_oldest_waiting_seconds",
        help: "How long the oldest receipt or inbound message has waited for a receiver bind (0 when none), by kind",
        value: (w) => w.oldestSeconds,
      },
    ],
  );

  // Each SMPP server process writes its counts every second (db/smppServerCounters.ts); the sum over them.
  new Counter({
    name: "sms_smpp_client_submits_total",
    help: "SMPP client applications' submit_sm, by account and outcome (accepted, refused, throttled), summed over every SMPP server process",
    labelNames: ["account", "outcome"] as const,
    registers: [registry],
    async collect() {
      const r = await reading();
      if (!r) return;
      this.reset();
      for (const c of r.smppSubmits)
        for (const outcome of ["accepted", "refused", "throttled"] as const) this.inc({ account: c.accountId, outcome }, c[outcome]);
    },
  });
}
