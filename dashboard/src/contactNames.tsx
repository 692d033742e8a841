// A contact's name wherever its number appears: the numbers a page shows are looked up among the account's
// contacts (GET /api/v1/contacts?phones=…, 100 a request) and shown as "Ada +14155550101".
import { ok } from "./api.js";
import { useAsync, useSession } from "./ui.js";

/** The first names of the contacts with these numbers (numbers without a contact, or without a name, are absent). */
export function useContactNames(phones: readonly string[]): Map<string, string> {
  const { client } = useSession();
  const wanted = [...new Set(phones.filter((p) => p.startsWith("+")))].sort();
  const names = useAsync(async () => {
    const found = new Map<string, string>();
    for (let i = 0; i < wanted.length; i += 100) {
      const page = await ok(client.GET("/api/v1/contacts", { params: { query: { phones: wanted.slice(i, i + 100), limit: 100 } } }));
      for (const c of page.data) if (c.firstName) found.set(c.phone, c.firstName);
    }
    return found;
  }, [wanted.join(",")]);
  return names.data ?? new Map();
}

/** A number with its contact's name before it, when it has one. */
export function Person({ phone, names }: { phone: string; names: Map<string, string> }) {
  const name = names.get(phone);
  return name ? (
    <>
      <span class="person-name">{name}</span> <span class="person-phone">{phone}</span>
    </>
  ) : (
    <>{phone}</>
  );
}
