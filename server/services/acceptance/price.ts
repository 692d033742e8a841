// The price of a new message, the intake rule every door applies before the funds stage: the account's price list
// (billing keeps the lists and caches each book by its version), a price per segment by the longest prefix, then
// the country, then the list's default; a destination the list prices at nothing is refused with `no_price` at the
// candidate's own path. A door prices its candidates through here, never through billing itself.
export { cachedPriceBook, priceBookFor, priceOf, type PriceBook } from "../../billing/index.js";
