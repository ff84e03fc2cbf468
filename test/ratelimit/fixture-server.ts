/**
 * One `vulnintel serve` stand-in process (see fixture-app.ts). Settings come from the
 * environment: the operator variables of rateLimitConfigFromEnv, plus
 *   FIXTURE_HOST (default "::", dual-stack), FIXTURE_PORT (default 0, any free port),
 *   FIXTURE_REDIS (redis URL), FIXTURE_TRUST_PROXY (comma-separated CIDRs),
 *   FIXTURE_NO_LIMIT=1 (no limiter, the benchmark's baseline).
 * Prints one line `{"port":N}` on stdout once listening; exits cleanly on SIGTERM.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRateLimiter, defaultRateLimitConfig, rateLimitConfigFromEnv } from '../../api/ratelimit/index.ts';
import { buildFixtureApp } from './fixture-app.ts';

const env = process.env;
const limiter =
  env.FIXTURE_NO_LIMIT === '1'
    ? undefined
    : createRateLimiter(
        rateLimitConfigFromEnv(
          env,
          defaultRateLimitConfig({
            redisUrl: env.FIXTURE_REDIS || undefined,
            trustProxy: env.FIXTURE_TRUST_PROXY ? env.FIXTURE_TRUST_PROXY.split(',') : [],
          }),
        ),
      );

const server = serve(
  { fetch: buildFixtureApp(limiter).fetch, hostname: env.FIXTURE_HOST ?? '::', port: Number(env.FIXTURE_PORT ?? 0) },
  (info: AddressInfo) => process.stdout.write(`${JSON.stringify({ port: info.port })}\n`),
);

process.on('SIGTERM', () => {
  server.close();
  void limiter?.close().then(() => process.exit(0));
  if (limiter === undefined) process.exit(0);
});
