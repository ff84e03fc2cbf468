/**
 * The /pulse options `serve`, `notify`, `update` and `poll` share (--pulse-db, --smtp,
 * --mail-from, --public-url, --pulse-allow-private-webhooks), turned into the store, links and
 * mailer, and the notify step `update` and `poll` run after each publish.
 */
import { formatDuration, info } from '../log.ts';
import { defaultPublicUrl, PulseLinks } from './links.ts';
import { createMailer, defaultMailFrom, type Mailer } from './mailer.ts';
import { formatNotifySummary, runNotify, type NotifySummary } from './notify.ts';
import { describePulseDb, openPulseStore } from './store/open.ts';
import type { PulseStore } from './store/store.ts';

export interface PulseCliOptions {
  pulseDb?: string;
  smtp?: string;
  mailFrom?: string;
  publicUrl?: string;
  pulseAllowPrivateWebhooks?: boolean;
}

export interface PulseSetup {
  store: PulseStore;
  links: PulseLinks;
  mailer: Mailer | null;
  allowPrivateWebhooks: boolean;
  where: string;
  close(): Promise<void>;
}

export async function openPulse(opts: PulseCliOptions, dataDir: string, port = 8080): Promise<PulseSetup> {
  const publicUrl = opts.publicUrl ?? defaultPublicUrl(port);
  const links = new PulseLinks(publicUrl);
  const mailer = opts.smtp ? createMailer(opts.smtp, opts.mailFrom ?? defaultMailFrom(publicUrl)) : null;
  const where = describePulseDb(opts.pulseDb, dataDir);
  let store: PulseStore;
  try {
    store = await openPulseStore(opts.pulseDb, dataDir);
  } catch (err) {
    mailer?.close();
    throw new Error(`cannot open the pulse store ${where}: ${(err as Error).message}`, { cause: err });
  }
  return {
    store,
    links,
    mailer,
    allowPrivateWebhooks: opts.pulseAllowPrivateWebhooks ?? false,
    where,
    async close() {
      mailer?.close();
      await store.close();
    },
  };
}

/** One notify run over the published snapshot, with progress and the summary line. */
export async function notifyOnce(opts: PulseCliOptions, dataDir: string): Promise<NotifySummary> {
  const pulse = await openPulse(opts, dataDir);
  try {
    info(`▶ notify (store ${pulse.where}${pulse.mailer ? '' : ', no --smtp: e-mail subscriptions wait'})`);
    const summary = await runNotify({ dataDir, store: pulse.store, links: pulse.links, mailer: pulse.mailer, allowPrivateWebhooks: pulse.allowPrivateWebhooks });
    info(`${summary.failed ? '!' : '✓'} ${formatNotifySummary(summary)}`);
    return summary;
  } finally {
    await pulse.close();
  }
}

/**
 * For `update` and `poll`: notify after a publish. A failure is reported, never fatal — the
 * snapshot is published, and the next run delivers what this one could not (the ledger).
 */
export function notifyAfterPublish(opts: PulseCliOptions, dataDir: string): () => Promise<void> {
  return async () => {
    const started = performance.now();
    try {
      await notifyOnce(opts, dataDir);
    } catch (err) {
      info(`✗ notify failed after ${formatDuration(performance.now() - started)}: ${(err as Error).message} (the next run delivers what this one could not)`);
    }
  };
}
