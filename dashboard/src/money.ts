// Money as the API gives it, an integer of micro-units (docs/BILLING.md), written as a decimal amount with
// integer arithmetic only (BigInt): 7500 → "0.0075 USD", 5000000 → "5.00 USD", -12500 → "-0.0125 USD".
export function formatMicros(micros: number, currency: string): string {
  const value = BigInt(micros);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const whole = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${whole.toLocaleString("en")}.${fraction} ${currency}`;
}

/** The decimal amount of `micros` for an input's value, without a currency: 7500 → "0.0075", 5000000 → "5". */
export function microsToDecimal(micros: number): string {
  const value = BigInt(micros);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const fraction = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${sign}${abs / 1_000_000n}${fraction ? `.${fraction}` : ""}`;
}

/**
 * A decimal amount as people type it ("0.0075", "5", "-1.25") in micro-units, with integer arithmetic only;
 * undefined when it is not one (more than six decimals, a comma, letters, beyond what the API takes).
 */
export function parseMicros(text: string): number | undefined {
  const m = /^\s*(-)?(\d+)(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!m) return undefined;
  const abs = BigInt(m[2]!) * 1_000_000n + BigInt((m[3] ?? "").padEnd(6, "0"));
  if (abs > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(m[1] ? -abs : abs);
}
