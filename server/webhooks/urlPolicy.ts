// Where receipts may be posted. In production a webhook URL must be https:// and every address its host
// resolves to must be public unicast; otherwise a tenant could make the service call into our own network
// (SSRF), e.g. the cloud metadata endpoint. WEBHOOK_ALLOW_PRIVATE=1 (development, tests) lifts both rules.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24],
  ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], ["::1", 128], ["64:ff9b::", 96], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8],
] as const) blocked.addSubnet(net, prefix, "ipv6");

/** True when an IP address is safe to dial: public unicast (IPv4-mapped IPv6 judged by its IPv4). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Why a webhook URL is not allowed, or undefined when it is. */
export async function webhookUrlProblem(raw: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not contain credentials";
  if (allowPrivate) return url.protocol === "https:" || url.protocol === "http:" ? undefined : "must be an http(s) URL";
  if (url.protocol !== "https:") return "must be an https:// URL";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return "has a host name that does not resolve";
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return "must resolve only to public addresses";
  return undefined;
}
