import { pino, type DestinationStream, type Logger } from "pino";

// Paths that may carry a credential or a message body. Redaction happens in pino itself, so no code path
// (request logs, error logs, a stray `log.info(req)`) can print them.
export const redactPaths = [
  "req.headers.authorization",
  'req.headers["idempotency-key"]',
  "headers.authorization",
  "authorization",
  "apiKey",
  "key",
  "secret",
  "*.secret",
  "body",
  "*.body",
  "req.body",
  "password",
  "databaseUrl",
];

export function createLogger(level = process.env.LOG_LEVEL ?? "info", destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: "[redacted]" }, base: { pid: process.pid } }, destination);
}

export type { Logger };
