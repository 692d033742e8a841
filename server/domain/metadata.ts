import { invalidField } from "./errors.js";

const KEY = /^[A-Za-z0-9_.-]{1,40}$/;
export const MAX_METADATA_KEYS = 10;

/** A message's metadata: at most 10 keys of 1 to 40 characters of A-Z a-z 0-9 _ . - (values: the schema). */
export function requireMetadata(metadata: Record<string, string> | undefined, path: string): Record<string, string> | null {
  if (metadata === undefined) return null;
  const keys = Object.keys(metadata);
  if (keys.length > MAX_METADATA_KEYS) throw invalidField(path, `has ${keys.length} keys; at most ${MAX_METADATA_KEYS}`);
  const bad = keys.find((k) => !KEY.test(k));
  if (bad !== undefined) throw invalidField(`${path}/${bad}`, "is not a key of 1 to 40 letters, digits, _ . or -");
  return keys.length === 0 ? null : metadata;
}
