/**
 * `vulnintel notify`: delivers the published snapshot's changes to the /pulse subscriptions
 * (PULSE §5). `update` and `poll` run the same step after each publish; run it alone from cron
 * for digests (daily/weekly are sent by the first run of a new period). Exit 0 even when some
 * deliveries failed: they are retried by the next runs (the summary line says how many).
 */
import { resolve } from 'node:path';
import { CliError } from '../../lib/errors.ts';
import { notifyOnce, type PulseCliOptions } from '../../lib/pulse/setup.ts';

export interface NotifyCommandOptions extends PulseCliOptions {
  data: string;
}

export async function runNotifyCommand(opts: NotifyCommandOptions): Promise<void> {
  try {
    await notifyOnce(opts, resolve(opts.data));
  } catch (err) {
    throw new CliError(`notify: ${(err as Error).message}`);
  }
}
