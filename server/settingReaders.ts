// How each kind of setting of server/config.ts is read from the environment and shown in the reference: an
// integer, a string, a flag set only by `1`, a country, one of a list. Each refuses a bad value with a message
// naming the variable.
import { isSupportedCountry } from "libphonenumber-js/max";

export type Env = NodeJS.ProcessEnv;

export interface Setting<T> {
  /** The environment variable. */
  name: string;
  /** The default as the reference shows it (Markdown). */
  shownDefault: string;
  /** One line for the reference (Markdown). */
  description: string;
  read(env: Env): T;
}

export function readInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** A non-negative integer; unset or empty means the fallback. `map` turns it into what the code uses. */
export function int(
  name: string,
  fallback: number,
  description: string,
  opts: { shownDefault?: string; map?: (n: number) => number } = {},
): Setting<number> {
  const map = opts.map ?? ((n: number) => n);
  return { name, shownDefault: opts.shownDefault ?? `\`${fallback}\``, description, read: (env) => map(readInt(env, name, fallback)) };
}

/** A string; only an unset variable takes the fallback (an empty one is kept). */
export function text(name: string, fallback: string, description: string): Setting<string> {
  return { name, shownDefault: fallback === "" ? "empty" : `\`${fallback}\``, description, read: (env) => env[name] ?? fallback };
}

/** A string that may be absent; empty counts as unset. */
export function optional(name: string, description: string): Setting<string | undefined> {
  return { name, shownDefault: "unset", description, read: (env) => env[name] || undefined };
}

/** A positive integer that may be absent (null); empty counts as unset. */
export function optionalPositiveInt(name: string, description: string): Setting<number | null> {
  return {
    name,
    shownDefault: "unset",
    description,
    read(env) {
      const raw = env[name];
      if (raw === undefined || raw === "") return null;
      const value = readInt(env, name, 0);
      if (value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
      return value;
    },
  };
}

/** On only when set to `1`. */
export function flag(name: string, description: string): Setting<boolean> {
  return { name, shownDefault: "unset", description, read: (env) => env[name] === "1" };
}

/** An ISO 3166-1 alpha-2 country code libphonenumber knows, or undefined when unset. */
export function optionalCountry(name: string, description: string): Setting<string | undefined> {
  return {
    name,
    shownDefault: "unset",
    description,
    read(env) {
      const raw = env[name]?.trim().toUpperCase() || undefined;
      if (raw !== undefined && !isSupportedCountry(raw))
        throw new Error(`${name} must be an ISO 3166 country code such as GB or US, got "${raw}"`);
      return raw;
    },
  };
}

/** A comma-separated list of E.164 prefixes (`+` and 1 to 15 digits), empty when unset. */
export function prefixList(name: string, description: string): Setting<string[]> {
  return {
    name,
    shownDefault: "empty",
    description,
    read(env) {
      const prefixes = (env[name] ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = prefixes.find((p) => !/^\+[0-9]{1,15}$/.test(p));
      if (bad !== undefined) throw new Error(`${name} must list E.164 prefixes such as +4470,+882, got "${bad}"`);
      return prefixes;
    },
  };
}

/** One of `values`, or undefined when unset (empty counts as unset). */
export function optionalOneOf<T extends string>(name: string, values: readonly T[], description: string): Setting<T | undefined> {
  return {
    name,
    shownDefault: "unset",
    description,
    read(env) {
      const raw = env[name] || undefined;
      if (raw !== undefined && !(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(", ")}`);
      return raw as T | undefined;
    },
  };
}

export function oneOf<T extends string>(name: string, values: readonly T[], fallback: T, description: string): Setting<T> {
  return {
    name,
    shownDefault: `\`${fallback}\``,
    description,
    read(env) {
      const raw = env[name] ?? fallback;
      if (!(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(", ")}`);
      return raw as T;
    },
  };
}
