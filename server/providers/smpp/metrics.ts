// SMPP metrics on the process-wide prom-client registry (served by /metrics in a process with the API).
import { Counter, Gauge, Histogram, register } from "prom-client";

export const submitsTotal = new Counter({
  name: "smpp_submits_total",
  help: "submit_sm answered, by status: ok, or the SMPP error it was refused with (throttle answers are not here: smpp_throttled_total)",
  labelNames: ["status"] as const,
});
// Not a failure: the submit is written again later, in its place (connection.ts, "Throttling").
export const throttledTotal = new Counter({
  name: "smpp_throttled_total",
  help: "submit_sm answered ESME_RTHROTTLED or ESME_RMSGQFUL (by reason): the link slowed down and the submit is written again later",
  labelNames: ["reason"] as const,
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

/** What the gauges read of the live connection (connection.ts). */
export interface SmppGaugeSource {
  readonly state: string;
  readonly inFlight: number;
  readonly waiting: number;
  readonly rate?: { readonly current: number };
}

let connection: SmppGaugeSource | undefined;
/** Points the gauges at the live connection (one per process). */
export function registerSmppMetrics(c: SmppGaugeSource): void {
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
  new Gauge({
    name: "smpp_submit_rate_limit",
    help: "submit_sm a second allowed now: SMPP_MAX_PER_SECOND, halved by each throttle burst (down to 1), raised again by successful submits",
    collect() {
      const rate = connection?.rate?.current;
      if (rate !== undefined) this.set(rate);
    },
  });
  new Gauge({
    name: "smpp_submits_waiting",
    help: "submit_sm of claimed messages waiting to be written: for the rate, the pause after a throttle, or to be written again after one",
    collect() {
      this.set(connection?.waiting ?? 0);
    },
  });
}
