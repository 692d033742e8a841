// The operator's accounts by name, for pickers and for naming an account an id stands for (the audit log, the
// routing table's matches, Explain): the first 100 accounts (GET /accounts' largest page); an id among the
// others is shown as itself.
import { ok } from "../../api.js";
import { useAsync, useSession } from "../../ui.js";

export interface AccountName {
  accountId: string;
  name: string;
}

export function useAccountNames(active = true): { accounts: AccountName[]; nameOf: (id: string) => string | undefined } {
  const { client } = useSession();
  const list = useAsync(
    async () => (active ? (await ok(client.GET("/api/v1/accounts", { params: { query: { limit: 100 } } }))).data : []),
    [active],
  );
  const accounts = (list.data ?? []).map((a) => ({ accountId: a.accountId, name: a.name }));
  return { accounts, nameOf: (id) => accounts.find((a) => a.accountId === id)?.name };
}
