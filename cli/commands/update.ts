/**
 * `vulnintel update`: fetch, build, publish. Exit 0 only when a new snapshot was published; a
 * failing source alone does not fail the job (it is reported, and stale in the manifest).
 */
import { CliError } from '../../lib/errors.ts';
import { info } from '../../lib/log.ts';
import { loadBuild } from '../fetch/build-step.ts';
import { abortOnSignals, parseSourceList, resolveDirs } from '../fetch/cli-options.ts';
import { loadFetchConfig } from '../fetch/config.ts';
import { LockBusyError } from '../fetch/lock.ts';
import { updateOnce, type UpdateResult } from '../fetch/update.ts';
import { notifyAfterPublish, type PulseCliOptions } from '../../lib/pulse/setup.ts';

export interface UpdateCommandOptions extends PulseCliOptions {
  sources?: string;
  raw?: string;
  data: string;
  config?: string;
  keep: number;
  full?: boolean;
  /** false with --no-notify. */
  notify?: boolean;
  allowShrink?: boolean;
}

/** Exit 0 only when a snapshot was published: 130 interrupted, 2 built but not published. */
export function updateExitError(result: UpdateResult): CliError | null {
  if (result.interrupted) return new CliError('interrupted before the build; nothing was published', 130);
  if (!result.build?.published) return new CliError('the build did not publish a snapshot', 2);
  return null;
}

export async function runUpdate(opts: UpdateCommandOptions): Promise<void> {
  const { rawDir, dataDir } = resolveDirs(opts);
  const sources = parseSourceList(opts.sources);
  const config = await loadFetchConfig(opts.config);
  const build = await loadBuild();
  const signals = abortOnSignals((sig) => info(`${sig}: stopping after the current request`));
  try {
    const result = await updateOnce({
      rawDir,
      dataDir,
      config,
      sources,
      keep: opts.keep,
      build,
      signal: signals.signal,
      full: opts.full ?? false,
      allowShrink: opts.allowShrink ?? false,
      ...(opts.notify !== false ? { afterPublish: notifyAfterPublish(opts, dataDir) } : {}),
    });
    const error = updateExitError(result);
    if (error) throw error;
    const failed = result.fetched.filter((r) => !r.ok);
    if (failed.length) info(`published with stale sources: ${failed.map((r) => `${r.source} (${r.error})`).join('; ')}`);
  } catch (err) {
    throw err instanceof LockBusyError ? new CliError(err.message) : err;
  } finally {
    signals.dispose();
  }
}
