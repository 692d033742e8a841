// A price list as operators keep it in a spreadsheet: a CSV of `prefix,price` or `country,price` lines (a
// header line is optional; `default,price` sets the default), prices in currency units ("0.0075"), read into
// the API's entries in micro-units (docs/BILLING.md, "Price lists"). Every bad line is reported with its number.
import { parseCsv } from "./csv.js";
import { parseMicros } from "./money.js";

export interface PriceEntryInput {
  prefix?: string;
  country?: string;
  pricePerSegment: number;
}

export interface PriceListCsv {
  entries: PriceEntryInput[];
  default: number | null;
  errors: string[];
}

const HEADER = /^(prefix|country|destination)$/i;

export function readPriceListCsv(text: string): PriceListCsv {
  const out: PriceListCsv = { entries: [], default: null, errors: [] };
  const seen = new Set<string>();
  for (const { line, fields } of parseCsv(text)) {
    const [where = "", price = "", ...rest] = fields;
    if (line === 1 && HEADER.test(where)) continue;
    if (rest.some((f) => f !== "")) {
      out.errors.push(`line ${line}: two columns expected (prefix or country, price)`);
      continue;
    }
    const micros = parseMicros(price);
    if (micros === undefined || micros < 0) {
      out.errors.push(`line ${line}: “${price}” is not a price (a decimal amount such as 0.0075, at most six decimals)`);
      continue;
    }
    const key = where.toUpperCase();
    if (seen.has(key)) {
      out.errors.push(`line ${line}: ${where} is listed twice`);
      continue;
    }
    seen.add(key);
    if (/^default$/i.test(where)) out.default = micros;
    else if (/^\+?[0-9]{1,15}$/.test(where))
      out.entries.push({ prefix: where.startsWith("+") ? where : `+${where}`, pricePerSegment: micros });
    else if (/^[A-Za-z]{2}$/.test(where)) out.entries.push({ country: where.toUpperCase(), pricePerSegment: micros });
    else out.errors.push(`line ${line}: “${where}” is neither a number prefix (+4477) nor a country code (GB)`);
  }
  return out;
}

/** The entries back as CSV, for the editor's text and an export: prefixes first, longest first. */
export function writePriceListCsv(entries: PriceEntryInput[], defaultPrice: number | null, format: (micros: number) => string): string {
  const lines = ["prefix,price"];
  const sorted = [...entries].sort((a, b) =>
    a.prefix && b.prefix
      ? b.prefix.length - a.prefix.length || a.prefix.localeCompare(b.prefix)
      : a.prefix
        ? -1
        : b.prefix
          ? 1
          : (a.country ?? "").localeCompare(b.country ?? ""),
  );
  for (const e of sorted) lines.push(`${e.prefix ?? e.country},${format(e.pricePerSegment)}`);
  if (defaultPrice !== null) lines.push(`default,${format(defaultPrice)}`);
  return `${lines.join("\n")}\n`;
}
