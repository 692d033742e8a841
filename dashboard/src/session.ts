// The API key lives in sessionStorage: it survives a reload of the tab and is gone when the tab closes.
const KEY = "sms-dashboard.apiKey";

export const KEY_FORMAT = /^sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/;

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(KEY, key);
    else sessionStorage.removeItem(KEY);
  } catch {
    /* storage disabled: the key lives only in memory */
  }
}
