/**
 * Who is one caller (contract §5.2 and §8.3, DESIGN §7).
 *
 * The caller is the address the socket recorded: an IPv4 address, or the /64 network of an
 * IPv6 address (a host rotating privacy addresses stays one caller); IPv4-mapped IPv6 counts as
 * the IPv4 address. Callers with no public address (RFC 1918, RFC 6598, ULA, link-local) are all
 * one caller. Loopback is an ordinary address here. Headers never define the caller, with one
 * exception: when the socket peer is a proxy listed with `--trust-proxy`, the rightmost
 * `X-Forwarded-For` hop that is not itself a trusted proxy is the caller.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** The caller key shared by every address without a public address. */
export const PRIVATE_CALLER = 'private';
/** The caller key when no address was recorded (socket already gone, in-process requests). */
export const UNKNOWN_CALLER = 'unknown';

const PRIVATE_V4_RANGES = new Set(['private', 'carrierGradeNat', 'linkLocal']);
const PRIVATE_V6_RANGES = new Set(['uniqueLocal', 'linkLocal']);

/** Parses `--trust-proxy` values: CIDRs, or bare addresses meaning one host. Throws on junk. */
export function parseTrustedProxies(values: readonly string[]): Cidr[] {
  return values.map((value) => {
    const text = value.trim();
    try {
      if (text.includes('/')) return normaliseCidr(ipaddr.parseCIDR(text));
      const address = ipaddr.parse(text);
      return normaliseCidr([address, address.kind() === 'ipv4' ? 32 : 128]);
    } catch {
      throw new Error(`--trust-proxy: not an address or CIDR: "${value}"`);
    }
  });
}

/** An IPv4-mapped IPv6 CIDR (::ffff:10.0.0.0/104) is stored as the IPv4 CIDR it means. */
function normaliseCidr([address, bits]: Cidr): Cidr {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/** Parses a textual address strictly (no `127.1` or hex forms); IPv4-mapped IPv6 becomes IPv4. */
export function parseAddress(text: string): Address | undefined {
  const zone = text.indexOf('%'); // link-local zone id ("fe80::1%eth0") is not part of the address
  const bare = zone === -1 ? text : text.slice(0, zone);
  if (isIP(bare) === 0) return undefined;
  return ipaddr.process(bare);
}

/** The caller key of one address: "4:a.b.c.d", "6:hhhh:hhhh:hhhh:hhhh" (the /64), or "private". */
export function callerKeyOf(address: Address): string {
  if (address.kind() === 'ipv4') {
    return PRIVATE_V4_RANGES.has(address.range()) ? PRIVATE_CALLER : `4:${address.toString()}`;
  }
  const v6 = address as ipaddr.IPv6;
  if (PRIVATE_V6_RANGES.has(v6.range())) return PRIVATE_CALLER;
  const p = v6.parts;
  return `6:${p[0]!.toString(16)}:${p[1]!.toString(16)}:${p[2]!.toString(16)}:${p[3]!.toString(16)}`;
}

/** Peer facts derived once per distinct socket address, then cached. */
interface Peer {
  key: string;
  /** Set only when the peer is a trusted proxy: then X-Forwarded-For is read. */
  trustedAddress: Address | undefined;
}

/**
 * Resolves caller keys. Socket addresses repeat (keep-alive, busy clients), so the parse is
 * cached per address string; the cache is simply emptied when full, which costs one re-parse.
 */
export class CallerResolver {
  readonly #trusted: Cidr[];
  readonly #peers = new Map<string, Peer>();
  readonly #cacheLimit: number;

  constructor(trustProxy: readonly string[], cacheLimit = 50_000) {
    this.#trusted = parseTrustedProxies(trustProxy);
    this.#cacheLimit = cacheLimit;
  }

  /** `remoteAddress` from the socket; `forwardedFor` is read only when the peer is trusted. */
  resolve(remoteAddress: string | undefined, forwardedFor: () => string | undefined): string {
    if (remoteAddress === undefined) return UNKNOWN_CALLER;
    const peer = this.#peer(remoteAddress);
    if (peer.trustedAddress === undefined) return peer.key;
    return this.#fromForwardedFor(peer.trustedAddress, forwardedFor());
  }

  #peer(remoteAddress: string): Peer {
    let peer = this.#peers.get(remoteAddress);
    if (peer !== undefined) return peer;
    const address = parseAddress(remoteAddress);
    peer =
      address === undefined
        ? { key: UNKNOWN_CALLER, trustedAddress: undefined }
        : { key: callerKeyOf(address), trustedAddress: this.#isTrusted(address) ? address : undefined };
    if (this.#peers.size >= this.#cacheLimit) this.#peers.clear();
    this.#peers.set(remoteAddress, peer);
    return peer;
  }

  #isTrusted(address: Address): boolean {
    for (const cidr of this.#trusted) {
      if (cidr[0].kind() === address.kind() && address.match(cidr)) return true;
    }
    return false;
  }

  /**
   * Walks X-Forwarded-For from the right: each trusted proxy vouches for the hop to its left,
   * so the first untrusted hop is the caller. A hop that does not parse ends the walk and the
   * last trusted address is the caller (a proxy wrote junk; nothing to its left can be believed).
   * When every hop is trusted, the leftmost one is the caller.
   */
  #fromForwardedFor(proxy: Address, header: string | undefined): string {
    let current = proxy;
    if (header !== undefined) {
      let end = header.length;
      while (end > 0) {
        const comma = header.lastIndexOf(',', end - 1);
        const hop = parseForwardedHop(header.slice(comma + 1, end));
        if (hop === undefined) break;
        current = hop;
        if (!this.#isTrusted(hop)) break;
        end = comma === -1 ? 0 : comma;
      }
    }
    return callerKeyOf(current);
  }
}

/** One X-Forwarded-For element: an address, optionally "[v6]:port" or "v4:port". */
function parseForwardedHop(raw: string): Address | undefined {
  let text = raw.trim();
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    text = text.slice(1, close);
  } else if (text.indexOf(':') !== -1 && text.indexOf(':') === text.lastIndexOf(':') && text.includes('.')) {
    text = text.slice(0, text.indexOf(':')); // "203.0.113.7:41234"
  }
  return parseAddress(text);
}
