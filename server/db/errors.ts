/** True when `error` is PostgreSQL's unique_violation on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === "23505" && e.constraint === constraint;
}

/** True when `error` is a foreign key violation (e.g. a group deleted between check and insert). */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === "23503";
}
