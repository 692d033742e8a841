import { getAccountSettings } from "../../db/accountSettings.js";
import { changeAccountSettings } from "../../services/accountSettings.js";
import type { Handlers } from "../types.js";

export const accountHandlers: Pick<Handlers, "Accounts_get" | "Accounts_updateSettings"> = {
  async Accounts_get({ db, account }) {
    return { status: 200, body: { accountId: account.id, name: account.name, settings: await getAccountSettings(db, account.id) } };
  },

  async Accounts_updateSettings({ db, account, body }) {
    return { status: 200, body: await changeAccountSettings(db, account.id, body) };
  },
};
