// Validity: how long a message may wait to be handed to the provider.

/** The longest validity period a message may have: seven days (`ValidityPeriod` in spec/common.tsp, 1 to 604800). */
export const MAX_VALIDITY_SECONDS = 604_800;

/** The end of the validity counted from `from`, or null without a validity period. */
export function validUntil(from: Date, validityPeriodSeconds: number | undefined): Date | null {
  return validityPeriodSeconds === undefined ? null : new Date(from.getTime() + validityPeriodSeconds * 1000);
}

export const VALIDITY_EXPIRED = {
  code: "validity_expired",
  message: "The message's validity period ended before it could be handed to the provider; it was not sent.",
};
