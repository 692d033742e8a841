// The development sign-in's API key lives in sessionStorage: it survives a reload of the tab and is gone when the
// tab closes.
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

// Whether a person's session may be open: the session cookie is HttpOnly (no script reads it), so the page
// keeps this flag beside it, set at sign-in and cleared at sign-out, and asks the API only when it is set.
const SESSION_HINT = "sms-dashboard.session";

export function sessionHinted(): boolean {
  try {
    return localStorage.getItem(SESSION_HINT) === "1";
  } catch {
    return false;
  }
}

export function hintSession(open: boolean): void {
  try {
    if (open) localStorage.setItem(SESSION_HINT, "1");
    else localStorage.removeItem(SESSION_HINT);
  } catch {
    /* storage disabled: a reload asks for the password again */
  }
}

/** Whether the server offers the API key sign-in (development; `DASHBOARD_KEY_SIGN_IN`): its page's meta tag. */
export function keySignInEnabled(): boolean {
  return document.querySelector('meta[name="sms-key-sign-in"]')?.getAttribute("content") === "on";
}
