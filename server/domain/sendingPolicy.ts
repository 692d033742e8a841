// Category and priority of an outbound message (docs/API.md, "Sending policy").

export type Category = "transactional" | "marketing";
export type Priority = "high" | "normal" | "low";

const PRIORITIES: readonly Priority[] = ["high", "normal", "low"];

/** A message's priority as jobs.priority (claimed 0 first). */
export const jobPriority = (priority: Priority): number => PRIORITIES.indexOf(priority);

export const SCHEDULE_DEFAULTS = { category: "transactional", priority: "normal" } as const satisfies {
  category: Category;
  priority: Priority;
};
export const CAMPAIGN_DEFAULTS = { category: "marketing", priority: "low" } as const satisfies { category: Category; priority: Priority };
