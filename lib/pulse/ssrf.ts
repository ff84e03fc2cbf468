/**
 * SSRF protection for webhooks (PULSE §4): a webhook never reaches loopback, private (RFC 1918),
 * link-local (cloud metadata 169.254.169.254 included), CGNAT (100.64/10, e.g. 100.100.100.200),
 * unique-local (fc00::/7, e.g. fd00:ec2::254), multicast, reserved or translated addresses.
 *
 * Checked after DNS resolution and on every delivery, by the connection itself: the undici
 * Agent of `webhookDispatcher` resolves through `guardedLookup`, which checks the addresses and
 * hands the socket exactly the address it checked — a name that resolves to a public address
 * when checked and to 127.0.0.1 a moment later (DNS rebinding) cannot slip through, because
 * there is no second resolution. Literal IPs in the URL (which skip lookup) are checked by
 * `checkWebhookUrl`, which every send calls first. `--pulse-allow-private-webhooks` lifts it.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export class WebhookTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetError';
  }
}

/** Why an address is refused (its range name), or null when it is an ordinary public unicast address. */
export function forbiddenRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'unparsable';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  // IPv4-compatible addresses (::/96, deprecated by RFC 4291; `::127.0.0.1`, `::a9fe:a9fe`):
  // ipaddr.js calls them unicast, yet a tunnel or a translating network reaches the IPv4
  // inside. No webhook lives there.
  const range = parsed.range();
  if (range !== 'unicast') return range;
  const ipv4Compatible = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
  return ipv4Compatible ? 'ipv4Compatible' : null;
}

/** A URL a webhook may have: http(s), no credentials, bounded. Throws WebhookTargetError. */
export function parseWebhookUrl(text: string): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookTargetError(`longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookTargetError('must be an http:// or https:// URL');
  if (url.username || url.password) throw new WebhookTargetError('must not carry a user name or password');
  if (url.hostname === '') throw new WebhookTargetError('has no host');
  return url;
}

const INTERNAL = 'webhooks may not reach internal addresses (the operator can allow them with --pulse-allow-private-webhooks)';

/**
 * The refusal of a name: the same words whether it resolves to an internal address or to none.
 * Whoever may create a subscription reads them; "db.corp resolves to 10.0.0.5 (private)" answered
 * any stranger's questions about the internal names and addresses the server's resolver knows.
 */
function refuseName(host: string): WebhookTargetError {
  return new WebhookTargetError(`${host} does not resolve to a public address: ${INTERNAL}`);
}

function refuse(host: string, address: string, range: string): WebhookTargetError {
  // An address the caller wrote is named (it says nothing the caller did not know); a name's is not.
  return isIP(host.replace(/^\[|\]$/g, '')) ? new WebhookTargetError(`${host} is an internal address (${range}): ${INTERNAL}`) : refuseName(host);
}

/** The resolver's answers that say a name has no address (rather than that it could not be asked). */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA']);

/** The literal address of a URL host, or null for a name. */
function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * Resolves the URL's host and checks every address (any internal one refuses it: a name with a
 * public and a private record is not trusted). Returns the addresses. Throws WebhookTargetError.
 * The resolution is bounded by `timeoutMs`, the webhook's own timeout: a host whose name servers
 * never answer held a creation's ping (and a notify worker) for as long as the system resolver
 * waits, 10 to 30 s, outside the webhook's timeout.
 */
export async function checkWebhookUrl(url: URL, allowPrivate: boolean, timeoutMs = 10_000): Promise<string[]> {
  const literal = literalAddress(url);
  let addresses: string[];
  if (literal) {
    addresses = [literal];
  } else {
    try {
      let timer: NodeJS.Timeout | undefined;
      addresses = (
        await Promise.race([
          new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(url.hostname, { all: true }, (err, found) => (err ? reject(err) : resolve(found)))),
          new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => reject(new WebhookTargetError(`${url.hostname} could not be resolved within ${timeoutMs} ms; try again later`)), timeoutMs);
          }),
        ]).finally(() => clearTimeout(timer))
      ).map((a) => a.address);
    } catch (err) {
      if (err instanceof WebhookTargetError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      // Refused in the words of an internal name only where internal names are refused.
      if (code !== undefined && NO_ADDRESS.has(code)) throw allowPrivate ? new WebhookTargetError(`${url.hostname} does not resolve (${code})`) : refuseName(url.hostname);
      throw new WebhookTargetError(`${url.hostname} could not be resolved (${code ?? (err as Error).message}); try again later`);
    }
  }
  if (!allowPrivate) {
    for (const address of addresses) {
      const range = forbiddenRange(address);
      if (range) throw refuse(url.hostname, address, range);
    }
  }
  return addresses;
}

/** A `lookup` for sockets that refuses internal addresses and connects to what it checked. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    dnsLookup(hostname, { all: true, family }, (err, found) => {
      if (err) return callback(err);
      if (!allowPrivate) {
        for (const entry of found) {
          const range = forbiddenRange(entry.address);
          if (range) return callback(refuse(hostname, entry.address, range));
        }
      }
      if (found.length === 0) return callback(refuseName(hostname));
      if (options.all) return callback(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  }) as LookupFunction;
}

/** The undici dispatcher every webhook request goes through. Close it when done. */
export function webhookDispatcher(allowPrivate: boolean, timeoutMs: number): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(allowPrivate), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 1000,
    connections: 4,
  });
}
