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
