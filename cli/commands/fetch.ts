/** `vulnintel fetch`: download the selected sources into the raw folder. */
import { CliError } from '../../lib/errors.ts';
import { info } from '../../lib/log.ts';
import { abortOnSignals, parseSourceList, resolveDirs } from '../fetch/cli-options.ts';
import { loadFetchConfig } from '../fetch/config.ts';
import { acquireFetchLock, LockBusyError } from '../fetch/lock.ts';
import { fetchSources, type SourceRunResult } from '../fetch/run.ts';

export interface FetchCommandOptions {
  sources?: string;
  raw?: string;
  data: string;
  config?: string;
  full?: boolean;
}

/** Throws the CliError a run's failures deserve (none: returns). */
export function failIfAnyFailed(results: SourceRunResult[]): void {
  if (results.some((r) => r.aborted)) throw new CliError('interrupted; the next run resumes where this one stopped', 130);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) {
    throw new CliError(
      `${failed.length} of ${results.length} sources failed (their last good raw data is kept):\n` +
        failed.map((r) => `  ${r.source}: ${r.error}`).join('\n'),
    );
  }
}

export async function runFetch(opts: FetchCommandOptions): Promise<void> {
  const { rawDir } = resolveDirs(opts);
  const sources = parseSourceList(opts.sources);
  const config = await loadFetchConfig(opts.config);
  const lock = await acquireFetchLock(rawDir).catch((err) => {
    throw err instanceof LockBusyError ? new CliError(err.message) : err;
  });
  const signals = abortOnSignals((sig) => info(`${sig}: stopping after the current request`));
  try {
    const results = await fetchSources({ rawDir, config, sources, signal: signals.signal, full: opts.full ?? false });
    failIfAnyFailed(results);
  } finally {
    signals.dispose();
    await lock.release();
  }
}
