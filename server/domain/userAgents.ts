// What a person reads of a session's User-Agent: its browser and system ("Chrome 131 on Linux"), parsed by
// bowser, a maintained parser (the dashboard's session list and GET /sessions' `device`).
import Bowser from "bowser";

/** "Chrome 131 on Linux"; the string itself when it names no browser (a program's, such as "node"); null for none. */
export function browserAndSystem(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os } = Bowser.parse(userAgent);
  if (!browser.name) return userAgent;
  const major = browser.version?.split(".")[0];
  const system = [os.name, os.versionName].filter(Boolean).join(" ");
  return `${browser.name}${major ? ` ${major}` : ""}${system ? ` on ${system}` : ""}`;
}
