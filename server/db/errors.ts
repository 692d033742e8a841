/** True when `error` is PostgreSQL's unique_violation on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === "23505" && e.constraint === constraint;
}

/** True when `error` is a foreign key violation (e.g. a group deleted between check and insert). */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === "23503";
}

/**
 * True when a statement failed for a reason that says nothing about the statement: a deadlock or serialization
 * failure (PostgreSQL rolled it back, running it again may well succeed), or a lost connection. What such a
 * statement recorded is retried as it was, never by re-running the work it records.
 */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? "";
  return (
    code === "40P01" || // deadlock_detected
    code === "40001" || // serialization_failure
    code === "55P03" || // lock_not_available
    code.startsWith("08") || // connection exceptions (08001: no host of the URL fits now, db/hosts.ts)
    code === "25006" || // read_only_sql_transaction: a write on a host a failover has just demoted
    code === "57P01" || // admin_shutdown (a terminated backend)
    code === "ECONNRESET" ||
    code === "ECONNREFUSED" ||
    code === "EPIPE" ||
    /Connection terminated|timeout exceeded when trying to connect|encountered a connection error and is not queryable/i.test(
      (error as Error)?.message ?? "",
    )
  );
}

/**
 * True when PostgreSQL ended a transaction to break a deadlock or a serialization conflict: it rolled the whole
 * transaction back, so running it again from the start is safe (db/retriedTransaction.ts).
 */
export function isRolledBackByConflict(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "40P01" || code === "40001";
}
