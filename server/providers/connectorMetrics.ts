// Per-connector counters on the process-wide prom-client registry (served by /metrics in a process with the API,
// like smpp_*); sms_connector_up is read from the database (http/databaseMetrics.ts, docs/ROUTING.md).
import { processCounter } from "../processMetrics.js";

export const connectorSubmits = processCounter({
  name: "sms_connector_submits_total",
  help: "Messages written to a connector, by its answer: ok, the error it refused with, unavailable (not written) or unknown",
  labelNames: ["connector", "status"] as const,
});
export const connectorSegments = processCounter({
  name: "sms_connector_segments_total",
  help: "SMS segments a connector accepted (rate() of it: segments per second)",
  labelNames: ["connector"] as const,
});
