// Carrier message ids as receipts write them (`messageIdFormat: "auto"`, docs/SMPP.md, "Receipt ids"): the same
// id may come back in another case, without (or with more) leading zeros, or in decimal where the
// submit_sm_resp had it in hexadecimal, or the other way round (SMPP 3.4 leaves the format to the SMSC).

/** An id's key, as migration 031 stores it beside the id: lower case, leading zeros dropped (all zeros: "0"). */
export function carrierIdKey(id: string): string {
  return id.toLowerCase().replace(/^0+/, "") || "0";
}

/**
 * The keys a receipt's id may match, the id's own first: its key, and, read as a decimal number, the same
 * number in hexadecimal, and, read as hexadecimal, the same number in decimal. Any size (BigInt).
 */
export function carrierIdCandidates(id: string): string[] {
  const keys = [carrierIdKey(id)];
  if (/^\d+$/.test(id)) keys.push(BigInt(id).toString(16));
  if (/^[0-9a-f]+$/i.test(id)) keys.push(BigInt(`0x${id}`).toString(10));
  return [...new Set(keys)];
}
