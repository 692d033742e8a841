// SMPP metrics on the process-wide prom-client registry (served by /metrics in a process with the API).
import { Counter, Gauge, Histogram, register } from "prom-client";
import type { SmppConnection } from "./connection.js";

export const submitsTotal = new Counter({
  name: "smpp_submits_total",
  help: "submit_sm answered, by status",
  labelNames: ["status"] as const,
});
export const sessionEnds = new Counter({
  name: "smpp_session_ends_total",
  help: "SMPP sessions ended, by reason (closed, malformed_pdu, submit_sm_timeout, enquire_link_timeout, bind_timeout, ...)",
  labelNames: ["reason"] as const,
});
export const receiptLag = new Histogram({
  name: "smpp_receipt_lag_seconds",
  help: "Time from the message being sent to its final SMPP receipt",
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 3600],
});

let connection: SmppConnection | undefined;
/** Points the gauges at the live connection (one per process). */
export function registerSmppMetrics(c: SmppConnection): void {
  connection = c;
  if (register.getSingleMetric("smpp_bound")) return;
  new Gauge({
    name: "smpp_bound",
    help: "1 when the SMPP session is bound",
    collect() {
      this.set(connection?.state === "bound" ? 1 : 0);
    },
  });
  new Gauge({
    name: "smpp_in_flight",
    help: "submit_sm awaiting submit_sm_resp",
    collect() {
      this.set(connection?.inFlight ?? 0);
    },
  });
}
