/** `vulnintel poll`: the live NVD poller (long-running; `--once` for a single poll). */
import { CliError } from '../../lib/errors.ts';
import { info } from '../../lib/log.ts';
import { defaultBuildOptions, loadBuild } from '../fetch/build-step.ts';
import { abortOnSignals, parseDuration, resolveDirs } from '../fetch/cli-options.ts';
import { loadFetchConfig } from '../fetch/config.ts';
import { healthPath, runPoller } from '../fetch/poller.ts';
import { notifyAfterPublish, type PulseCliOptions } from '../../lib/pulse/setup.ts';

export interface PollCommandOptions extends PulseCliOptions {
  interval: string;
  raw?: string;
  data: string;
  config?: string;
  once?: boolean;
  keep: number;
  /** false with --no-notify. */
  notify?: boolean;
}

export async function runPoll(opts: PollCommandOptions): Promise<void> {
  const { rawDir, dataDir } = resolveDirs(opts);
  const intervalMs = parseDuration(opts.interval, '--interval');
  const config = await loadFetchConfig(opts.config);
  const build = await loadBuild();
  const signals = abortOnSignals((sig) => info(`${sig}: poller stopping`));
  info(`poller: every ${opts.interval}, health in ${healthPath(dataDir)}`);
  try {
    const health = await runPoller({
      rawDir,
      dataDir,
      intervalMs,
      once: opts.once ?? false,
      config,
      build,
      buildOptions: defaultBuildOptions(rawDir, dataDir, opts.keep),
      signal: signals.signal,
      ...(opts.notify !== false ? { afterPublish: notifyAfterPublish(opts, dataDir) } : {}),
    });
    // A service stopped by a signal exits 0; a single `--once` poll reports its own result.
    if (opts.once && !signals.signal.aborted && !health.last_poll_ok) throw new CliError(`poll failed: ${health.last_error}`);
  } finally {
    signals.dispose();
  }
}
