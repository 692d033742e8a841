// The formats every request is checked with, over ajv-formats' full ones: by the request validator (app.ts) and
// by the batch's item validator (batchItems.ts), so a date or an id means the same at every door.
import { isRequestDate, isRequestDateTime } from "../domain/dateBounds.js";

export const REQUEST_FORMATS = {
  // ajv-formats' uuid also takes "urn:uuid:<uuid>", which PostgreSQL's uuid type rejects.
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  // Instants that exist: no leap second, no 29 February of a common year, a year 1970–9999 after the offset.
  "date-time": isRequestDateTime,
  date: isRequestDate,
} as const;
