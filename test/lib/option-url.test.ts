/**
 * lib/option-url.ts: a URL option refused for its shape names the option and what was given,
 * but never the password it carries (the message goes to stderr: cron mail, the journal, a log file).
 */
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../lib/pulse/mailer.ts';
import { parseOptionUrl } from '../../lib/option-url.ts';
import { createRateLimiter, defaultRateLimitConfig } from '../../api/ratelimit/index.ts';

/** The message `fn` throws. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('parseOptionUrl', () => {
  it('does not echo the credentials of a URL it cannot parse (a "/" left unescaped in the password)', () => {
    const message = refusal(() => parseOptionUrl('--smtp', 'smtp://alerts:s3cr/et@mail.example.org:587', ['smtp', 'smtps'], 'smtp://user:password@mail.example.org:587'));
    expect(message).toBe('--smtp: not a URL: "smtp://***@mail.example.org:587" (e.g. smtp://user:password@mail.example.org:587)');
  });

  it('hides a password holding "@" too, and still quotes a text without credentials', () => {
    expect(refusal(() => parseOptionUrl('--smtp', 'smtp://a:p/@ss@host:587', ['smtp'], 'x'))).toBe('--smtp: not a URL: "smtp://***@host:587" (e.g. x)');
    expect(refusal(() => parseOptionUrl('--redis', 'redis-server', ['redis'], 'x'))).toBe('--redis: not a URL: "redis-server" (e.g. x)');
  });

  it('keeps the secret out of --smtp and --redis refusals', () => {
    expect(refusal(() => createMailer('smtp://alerts:s3cr/et@mail.example.org:587', 'a@example.org'))).not.toContain('s3cr');
    expect(refusal(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'redis://:s3cr/et@127.0.0.1:6379' })))).not.toContain('s3cr');
  });
});
