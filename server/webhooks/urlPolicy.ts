// Where receipts may be posted. In production a webhook URL must be https:// and every address its host
// resolves to must be public unicast; otherwise a tenant could make the service call into our own network
// (SSRF), e.g. the cloud metadata endpoint. WEBHOOK_ALLOW_PRIVATE=1 (development, tests) lifts both rules.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
  ["192.88.99.0", 24], // 6to4 relay anycast
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
// IPv6 ranges that carry or reach IPv4 (transition mechanisms) are blocked whole, whatever IPv4 they embed:
// a NAT64 gateway or a 6to4/Teredo relay would carry the request to an address no rule here has judged.
// IPv4-mapped ::ffff:a.b.c.d is the exception, judged by its IPv4 (BlockList checks it against the IPv4 rules).
for (const [net, prefix] of [
  ["::", 96], // unspecified, loopback and IPv4-compatible ::a.b.c.d
  ["::ffff:0:0:0", 96], // IPv4-translated ::ffff:0:a.b.c.d (SIIT)
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48], // NAT64, well-known and local-use prefixes
  ["100::", 64],
  ["2001::", 32],
  ["2001:db8::", 32],
  ["2002::", 16], // discard, Teredo, documentation, 6to4
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8], // unique local, link-local, site-local, multicast
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

/** True when an IP address is safe to dial: public unicast (IPv4-mapped IPv6 judged by its IPv4). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Why a webhook URL is not allowed, or undefined when it is. */
export async function webhookUrlProblem(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<string | undefined> {
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
  // A name that does not resolve says so (a machine without DNS, a typo); one that resolves to an internal
  // address gets the same answer whatever the address, so registration cannot be used to map internal ranges.
  const notPublic = "must resolve only to public addresses";
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ENOTFOUND" || code === "ENODATA"
      ? `names a host that does not resolve (${host} has no address here)`
      : `names a host that could not be resolved now (${host}: DNS did not answer); try again`;
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return notPublic;
  return undefined;
}
