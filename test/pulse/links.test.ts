/** Capability tokens never reach a log (lib/pulse/links.ts withoutTokens). */
import { describe, expect, it } from 'vitest';
import { withoutTokens } from '../../lib/pulse/links.ts';

describe('withoutTokens', () => {
  it('replaces the token of every link that carries one, in paths and whole URLs', () => {
    const token = 'SECRETTOKENxxxxxxxxxx1';
    for (const [path, shown] of <[string, string][]>[
      [`/pulse/s/${token}`, '/pulse/s/<token>'],
      [`/pulse/s/${token}/unsubscribe`, '/pulse/s/<token>/unsubscribe'],
      [`/pulse/confirm/${token}`, '/pulse/confirm/<token>'],
      [`/pulse/api/subscriptions/${token}`, '/pulse/api/subscriptions/<token>'],
      [`/pulse/api/subscriptions/${token}/deliveries?limit=5`, '/pulse/api/subscriptions/<token>/deliveries?limit=5'],
      [`/pulse/api/subscriptions/${token}/pause`, '/pulse/api/subscriptions/<token>/pause'],
      [`/pulse/api/confirm/${token}`, '/pulse/api/confirm/<token>'],
      [`/pulse/subscribed/${token}`, '/pulse/subscribed/<token>'],
      [`/pulse/subscribe?vendor=cisco&preview=1&draft=${token}`, '/pulse/subscribe?vendor=cisco&preview=1&draft=<token>'],
    ]) {
      expect(withoutTokens(path)).toBe(shown);
      expect(withoutTokens(`http://127.0.0.1:8080${path}`)).toBe(`http://127.0.0.1:8080${shown}`);
      expect(withoutTokens(`http://127.0.0.1:8080${path}`)).not.toContain(token);
    }
  });

  it('leaves every other path as it is', () => {
    for (const path of ['/pulse', '/pulse/cves/CVE-2024-3400', '/pulse/subscribe', '/pulse/api/subscriptions', '/api/v1/public/cves?search=s']) {
      expect(withoutTokens(path)).toBe(path);
    }
  });
});
