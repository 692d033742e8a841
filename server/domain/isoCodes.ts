// ISO codes the service takes as they are, checked against what exists: currencies (ISO 4217, the codes in
// current use as the JavaScript runtime's ICU knows them: `USD`, `EUR`; never `ZZZ`) and countries (ISO 3166-1
// alpha-2, as libphonenumber-js knows them: the countries numbers belong to; never `XX`).
import { isSupportedCountry } from "libphonenumber-js/max";
import { invalidField } from "./errors.js";

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

export const isCurrencyCode = (code: string): boolean => CURRENCIES.has(code);
export const isCountryCode = (code: string): boolean => /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);

/** 400 naming `path` unless `code` is an ISO 4217 currency in use. */
export function checkCurrency(code: string, path: string): void {
  if (!isCurrencyCode(code)) throw invalidField(path, `is not an ISO 4217 currency code in use (${code})`);
}

/** 400 naming `path` unless `code` is an ISO 3166-1 alpha-2 country that exists. */
export function checkCountry(code: string, path: string): void {
  if (!isCountryCode(code)) throw invalidField(path, `is not an ISO 3166-1 alpha-2 country code (${code})`);
}
