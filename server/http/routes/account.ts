import { getAccountSettings } from "../../db/accountSettings.js";
import { getAccount } from "../../operator/index.js";
import { readDailyUsage } from "../../operator/index.js";
import { changeAccountSettings } from "../../services/accountSettings.js";
import type { Handlers } from "../types.js";

export const accountHandlers: Pick<Handlers, "Accounts_get" | "Accounts_updateSettings"> = {
  async Accounts_get({ db, account }) {
    const [settings, row] = await Promise.all([getAccountSettings(db, account.id), getAccount(db, account.id)]);
    const usage = row!.limits.dailySegmentQuota === null ? null : await readDailyUsage(db, account.id);
    return { status: 200, body: { accountId: account.id, name: account.name, settings, limits: row!.limits, usage } };
  },

  async Accounts_updateSettings({ db, account, body }) {
    return { status: 200, body: await changeAccountSettings(db, account.id, body) };
  },
};
