/**
 * A real `vulnintel serve` with a subscription store and a real local SMTP server, on an empty
 * data folder of its own (no snapshot: the /pulse API needs none), as the /pulse API tests start
 * it. `close` stops both servers and removes the folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { RateLimitConfig } from '../../api/ratelimit/index.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../api/server.ts';
import { startSmtpSink, type SmtpSink } from './sinks.ts';

/** The public name the servers' links use. */
export const PUBLIC_URL = 'https://alerts.example.org';

export interface PulseServer {
  server: RunningServer;
  smtp: SmtpSink;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * `mail: false`: the server is not given the SMTP server (as without `--smtp`), which still runs.
 * `rateLimit`: the rate limiter's settings (off by default, as the limits under test are /pulse's own).
 */
export async function startPulseServer(
  pulse: Omit<NonNullable<ServerOptions['pulse']>, 'smtp' | 'publicUrl'> = {},
  { mail = true, rateLimit = false }: { mail?: boolean; rateLimit?: RateLimitConfig | false } = {},
): Promise<PulseServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-'));
  const smtp = await startSmtpSink();
  const server = await startServer({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    rateLimit,
    logger: pino({ level: 'silent' }),
    pulse: { ...pulse, ...(mail ? { smtp: smtp.url } : {}), publicUrl: PUBLIC_URL },
  });
  return {
    server,
    smtp,
    dataDir,
    async close() {
      await server.close();
      await smtp.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
