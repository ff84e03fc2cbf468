/**
 * A pulse service on real peers, for the tests that drive it directly (not over HTTP): a store in
 * a temporary data folder, a real SMTP server, a webhook receiver and a mailer to that server;
 * `close` stops every one of them and removes the folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PulseLinks } from '../../lib/pulse/links.ts';
import { createMailer, type Mailer } from '../../lib/pulse/mailer.ts';
import type { NotifyOptions } from '../../lib/pulse/notify.ts';
import { PulseService, type PulseLimits } from '../../lib/pulse/service.ts';
import { openPulseStore } from '../../lib/pulse/store/open.ts';
import type { PulseStore } from '../../lib/pulse/store/store.ts';
import { startSmtpSink, startWebhookReceiver, type SmtpSink, type SmtpSinkOptions, type WebhookReceiver } from './sinks.ts';

export interface ServiceFixture {
  dataDir: string;
  store: PulseStore;
  smtp: SmtpSink;
  hooks: WebhookReceiver;
  mailer: Mailer;
  links: PulseLinks;
  /** Private webhooks allowed (the receiver listens on loopback). */
  service: PulseService;
  /** runNotify's options on these peers (the service's clock, private webhooks allowed, 5 s webhook timeout); add `changes`. */
  notify: Omit<NotifyOptions, 'changes'>;
  close(): Promise<void>;
}

/** The token at the end of a manage (or confirm) link. */
export const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

export interface ServiceFixtureOptions {
  limits: Partial<PulseLimits>;
  now?: () => Date;
  clockSeconds?: () => number;
  /** The store as `--pulse-db` names it (a postgres:// URL); absent: a SQLite file in the data folder. */
  pulseDb?: string;
  smtp?: SmtpSinkOptions;
}

export async function startServiceFixture(opts: ServiceFixtureOptions): Promise<ServiceFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-service-'));
  const store = await openPulseStore(opts.pulseDb, dataDir);
  const smtp = await startSmtpSink(opts.smtp);
  const hooks = await startWebhookReceiver(opts.clockSeconds);
  const mailer = createMailer(smtp.url, 'vulnintel <pulse@pulse.example.org>');
  const links = new PulseLinks('https://pulse.example.org');
  const service = new PulseService({ store, links, mailer, allowPrivateWebhooks: true, limits: opts.limits, ...(opts.now ? { now: opts.now } : {}) });
  return {
    dataDir,
    store,
    smtp,
    hooks,
    mailer,
    links,
    service,
    notify: { dataDir, store, links, mailer, allowPrivateWebhooks: true, ...(opts.now ? { now: opts.now } : {}), webhookTimeoutMs: 5000 },
    async close() {
      mailer.close();
      await store.close();
      await smtp.close();
      await hooks.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
