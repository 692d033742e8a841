// Category and priority of an outbound message (docs/API.md, "Sending policy").

export type Category = "transactional" | "marketing";
export type Priority = "high" | "normal" | "low";

const PRIORITIES: readonly Priority[] = ["high", "normal", "low"];

/** A message's priority as jobs.priority (claimed 0 first). */
export const jobPriority = (priority: Priority): number => PRIORITIES.indexOf(priority);

/** A message's send job's jobs.priority (claimed 0 first), as SQL over a text expression. */
export const jobPrioritySql = (priority: string) => `(array_position(ARRAY['high', 'normal', 'low'], ${priority}) - 1)::smallint`;

export const SCHEDULE_DEFAULTS = { category: "transactional", priority: "normal" } as const satisfies {
  category: Category;
  priority: Priority;
};
export const CAMPAIGN_DEFAULTS = { category: "marketing", priority: "low" } as const satisfies { category: Category; priority: Priority };
