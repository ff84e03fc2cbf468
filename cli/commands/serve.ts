/**
 * `vulnintel serve`: the read API over the published snapshot of `--data` (DESIGN §2, §6).
 * Rate limiting is on unless `--no-rate-limit`; its numbers can be tuned from the environment
 * (api/ratelimit/config.ts). Other environment settings: VULNINTEL_QUERY_BUDGET_MS (execution
 * budget per query, default 250), VULNINTEL_EXPORT_CAP (rows per export, default 50,000),
 * LOG_LEVEL. SIGINT/SIGTERM close it gracefully: requests in flight finish first.
 */
import { resolve } from 'node:path';
import { defaultRateLimitConfig, rateLimitConfigFromEnv, type RateLimitConfig } from '../../api/ratelimit/index.ts';
import { startServer } from '../../api/server.ts';
import { CliError } from '../../lib/errors.ts';
import type { PulseCliOptions } from '../../lib/pulse/setup.ts';

export interface ServeOptions extends PulseCliOptions {
  data: string;
  host: string;
  port: number;
  redis?: string;
  trustProxy: string[];
  /** false with --no-rate-limit. */
  rateLimit: boolean;
}

export async function runServe(opts: ServeOptions): Promise<void> {
  const dataDir = resolve(opts.data);
  let rateLimit: RateLimitConfig | false;
  try {
    rateLimit = opts.rateLimit
      ? rateLimitConfigFromEnv(process.env, defaultRateLimitConfig({ redisUrl: opts.redis, trustProxy: opts.trustProxy ?? [] }))
      : false;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  let server;
  try {
    server = await startServer({
      dataDir,
      host: opts.host,
      port: opts.port,
      rateLimit,
      pulse: {
        pulseDb: opts.pulseDb,
        smtp: opts.smtp,
        mailFrom: opts.mailFrom,
        publicUrl: opts.publicUrl,
        pulseAllowPrivateWebhooks: opts.pulseAllowPrivateWebhooks,
        trustProxy: opts.trustProxy ?? [],
      },
    });
  } catch (err) {
    throw new CliError(`cannot serve: ${(err as Error).message}`);
  }
  const snapshot = server.store.current;
  const failure = server.store.openFailure;
  // A published snapshot that cannot be opened is no "nothing published yet".
  const unopened = failure ? `${failure.buildId === null ? 'CURRENT could not be read' : `published snapshot ${failure.buildId} could not be opened`}: ${failure.error}` : null;
  const served = snapshot ? `snapshot ${snapshot.buildId}, ${snapshot.records.size} CVEs` : unopened ? `no snapshot served, ${unopened}; 503 until it opens (tried again every 30 s)` : 'no snapshot yet: 503 until one is published';
  process.stderr.write(
    `vulnintel serving ${server.url} from ${dataDir} (${served}; rate limiting ${rateLimit ? 'on' : 'off'}; /pulse store ${server.pulse?.where}, e-mail ${server.pulse?.mailer ? 'on' : 'off (no --smtp)'}${server.pulse?.allowPrivateWebhooks ? ', private webhooks allowed' : ''}; links to ${server.pulse?.links.base})\n`,
  );
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      process.stderr.write(`vulnintel: ${signal}, closing (requests in flight finish first)\n`);
      void server.close().then(done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
