// How the dashboard names a field a problem points at: people read "Scheduled at", not "/body/scheduledAt".
/**
 * A field of a problem's JSON pointer in words a person reads: `/body/scheduledAt` is "Scheduled at",
 * `/body/messages/1/to` "Messages › item 2 › to".
 */
export function fieldName(path: string): string {
  const words = path
    .replace(/^\/(body|query|path)\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((segment) =>
      /^\d+$/.test(segment) ? `item ${Number(segment) + 1}` : segment.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase(),
    )
    .join(" › ");
  return words ? words[0]!.toUpperCase() + words.slice(1) : "The request";
}

/** A problem's detail with the JSON pointers it names written as field names. */
export const plainDetail = (detail: string) =>
  detail.replace(/^The request is invalid: /, "").replace(/\/(body|query|path)(\/[\w.-]+)*/g, (pointer) => fieldName(pointer));
