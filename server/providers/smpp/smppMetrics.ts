// SMPP metrics on the process-wide prom-client registry (served by /metrics in a process with the API).
import { Gauge, register } from "prom-client";
import { processCounter, processHistogram } from "../../processMetrics.js";

export const submitsTotal = processCounter({
  name: "smpp_submits_total",
  help: "submit_sm answered, by status: ok, or the SMPP error it was refused with (throttle answers are not here: smpp_throttled_total)",
  labelNames: ["status"] as const,
});
// Not a failure: the submit is written again later, in its place (connection.ts, "Throttling").
export const throttledTotal = processCounter({
  name: "smpp_throttled_total",
  help: "submit_sm answered ESME_RTHROTTLED or ESME_RMSGQFUL (by reason): the link slowed down and the submit is written again later",
  labelNames: ["reason"] as const,
});
export const sessionEnds = processCounter({
  name: "smpp_session_ends_total",
  help: "SMPP sessions ended, by reason (closed, malformed_pdu, submit_sm_timeout, enquire_link_timeout, bind_timeout, ...)",
  labelNames: ["reason"] as const,
});
export const receiptLag = processHistogram({
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

// The process's live sessions (every connector's, every session of each): the gauges add them up.
const sessions = new Set<SmppGaugeSource>();
const sum = (pick: (c: SmppGaugeSource) => number) => [...sessions].reduce((n, c) => n + pick(c), 0);

/** Counts a live session in the gauges (until unregisterSmppMetrics). */
export function registerSmppMetrics(c: SmppGaugeSource): void {
  sessions.add(c);
  if (register.getSingleMetric("smpp_bound")) return;
  new Gauge({
    name: "smpp_bound",
    help: "SMPP sessions of this process bound now (per connector: sms_connector_up)",
    collect() {
      this.set(sum((c) => (c.state === "bound" ? 1 : 0)));
    },
  });
  new Gauge({
    name: "smpp_in_flight",
    help: "submit_sm awaiting submit_sm_resp, over this process's sessions",
    collect() {
      this.set(sum((c) => c.inFlight));
    },
  });
  new Gauge({
    name: "smpp_submit_rate_limit",
    help: "submit_sm a second allowed now over this process's sessions: SMPP_MAX_PER_SECOND each, halved by each throttle burst (down to 1), raised again by successful submits",
    collect() {
      this.set(sum((c) => c.rate?.current ?? 0));
    },
  });
  new Gauge({
    name: "smpp_submits_waiting",
    help: "submit_sm of claimed messages waiting to be written: for the rate, the pause after a throttle, or to be written again after one",
    collect() {
      this.set(sum((c) => c.waiting ?? 0));
    },
  });
}

/** A session stopped: no longer counted. */
export function unregisterSmppMetrics(c: SmppGaugeSource): void {
  sessions.delete(c);
}
