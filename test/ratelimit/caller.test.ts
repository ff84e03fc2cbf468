import { describe, expect, it } from 'vitest';
import {
  CallerResolver,
  PRIVATE_CALLER,
  UNKNOWN_CALLER,
  callerKeyOf,
  parseAddress,
  parseTrustedProxies,
} from '../../api/ratelimit/caller.ts';

const key = (address: string) => callerKeyOf(parseAddress(address)!);

describe('caller identity from an address (contract §8.3)', () => {
  it('keys an IPv4 address by itself, and IPv4-mapped IPv6 as the same IPv4 caller', () => {
    expect(key('198.51.100.7')).toBe('4:198.51.100.7');
    expect(key('::ffff:198.51.100.7')).toBe('4:198.51.100.7');
    expect(key('198.51.100.8')).not.toBe(key('198.51.100.7'));
  });

  it('keys IPv6 by its /64: privacy addresses of one host are one caller', () => {
    expect(key('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('6:2001:db8:1:2');
    expect(key('2001:db8:1:2::1')).toBe(key('2001:db8:1:2:ffff::9'));
    expect(key('2001:db8:1:3::1')).not.toBe(key('2001:db8:1:2::1'));
    expect(key('2001:0DB8:0001:0002::1')).toBe('6:2001:db8:1:2');
  });

  it('groups every caller without a public address as one caller', () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.9',
      '172.31.255.1',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.254',
      '169.254.10.10',
      '::ffff:10.0.0.5',
      'fd12:3456::1',
      'fc00::1',
      'fe80::1',
      'fe80::1%eth0',
    ]) {
      expect(key(address), address).toBe(PRIVATE_CALLER);
    }
  });

  it('treats addresses next to the private ranges, and loopback, as ordinary callers', () => {
    expect(key('172.32.0.1')).toBe('4:172.32.0.1');
    expect(key('100.128.0.1')).toBe('4:100.128.0.1');
    expect(key('127.0.0.1')).toBe('4:127.0.0.1');
    expect(key('127.0.0.2')).toBe('4:127.0.0.2');
    expect(key('::1')).toBe('6:0:0:0:0');
  });

  it('rejects non-canonical address spellings instead of guessing', () => {
    expect(parseAddress('127.1')).toBeUndefined();
    expect(parseAddress('0x7f000001')).toBeUndefined();
    expect(parseAddress('not-an-ip')).toBeUndefined();
  });
});

describe('CallerResolver and --trust-proxy', () => {
  it('never reads X-Forwarded-For when the peer is not a trusted proxy', () => {
    const resolver = new CallerResolver(['10.0.0.0/8']);
    let read = 0;
    const header = () => {
      read++;
      return '203.0.113.5';
    };
    expect(resolver.resolve('198.51.100.7', header)).toBe('4:198.51.100.7');
    expect(resolver.resolve('198.51.100.7', header)).toBe('4:198.51.100.7'); // cached path too
    expect(read).toBe(0);
  });

  it('without --trust-proxy, a proxy in a private network is simply the private caller', () => {
    const resolver = new CallerResolver([]);
    expect(resolver.resolve('10.0.0.2', () => '203.0.113.5')).toBe(PRIVATE_CALLER);
  });

  it('takes the rightmost hop that is not a trusted proxy', () => {
    const resolver = new CallerResolver(['10.0.0.0/8', '192.0.2.10']);
    // The client forged the first two entries; proxy 192.0.2.10 appended 203.0.113.5, and the
    // edge 10.0.0.2 appended 192.0.2.10.
    const xff = '1.1.1.1, 8.8.8.8, 203.0.113.5, 192.0.2.10';
    expect(resolver.resolve('10.0.0.2', () => xff)).toBe('4:203.0.113.5');
    expect(resolver.resolve('10.0.0.2', () => '203.0.113.5')).toBe('4:203.0.113.5');
    expect(resolver.resolve('::ffff:10.0.0.2', () => '[2001:db8:9:9::1]:443')).toBe('6:2001:db8:9:9');
    expect(resolver.resolve('10.0.0.2', () => '203.0.113.6:51234')).toBe('4:203.0.113.6');
  });

  it('falls back to the last trusted address when the header is missing, junk, or all trusted', () => {
    const resolver = new CallerResolver(['198.51.100.0/24']);
    expect(resolver.resolve('198.51.100.1', () => undefined)).toBe('4:198.51.100.1');
    expect(resolver.resolve('198.51.100.1', () => '203.0.113.5, garbage')).toBe('4:198.51.100.1');
    expect(resolver.resolve('198.51.100.1', () => '198.51.100.9, 198.51.100.8')).toBe('4:198.51.100.9');
  });

  it('matches IPv6 and IPv4-mapped trusted ranges', () => {
    const resolver = new CallerResolver(['2001:db8:ffff::/48', '::ffff:192.0.2.0/120']);
    expect(resolver.resolve('2001:db8:ffff::1', () => '198.51.100.3')).toBe('4:198.51.100.3');
    expect(resolver.resolve('192.0.2.77', () => '198.51.100.4')).toBe('4:198.51.100.4');
  });

  it('has no caller address when the socket recorded none', () => {
    expect(new CallerResolver([]).resolve(undefined, () => '203.0.113.5')).toBe(UNKNOWN_CALLER);
  });

  it('refuses malformed --trust-proxy values', () => {
    expect(() => parseTrustedProxies(['10.0.0.0/33'])).toThrow(/--trust-proxy/);
    expect(() => parseTrustedProxies(['proxy.example'])).toThrow(/--trust-proxy/);
  });
});
