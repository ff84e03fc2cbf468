/** Parsing shared by `fetch`, `update` and `poll`: source lists, durations, folders. */
import { resolve } from 'node:path';
import { CliError } from '../../lib/errors.ts';
import { defaultRawDir } from '../../lib/paths.ts';
import { RAW_SOURCES, type RawSourceKey } from '../../lib/raw-layout.ts';
import { SOURCE_NAMES, type SourceName } from './config.ts';

/** `nvd,kev` → names; accepts raw-layout keys too (`pocInGithub` = `poc-in-github`). */
export function parseSourceList(list: string | undefined): SourceName[] {
  // Only a missing --sources means every source: `--sources "$SOURCES"` with the variable unset
  // or empty pulled all twelve (the NVD full pull and the CVE List's half GB included).
  if (list === undefined) return [...SOURCE_NAMES];
  const out: SourceName[] = [];
  for (const part of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const name = (SOURCE_NAMES as string[]).includes(part)
      ? (part as SourceName)
      : (RAW_SOURCES[part as RawSourceKey] as SourceName | undefined);
    if (!name) throw new CliError(`unknown source "${part}" (sources: ${SOURCE_NAMES.join(', ')})`);
    if (!out.includes(name)) out.push(name);
  }
  // `--sources ,` (or "") names no source: an error, not a run that fetches nothing and says it worked.
  if (out.length === 0) throw new CliError(`--sources "${list}": names no source (sources: ${SOURCE_NAMES.join(', ')})`);
  return out;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The longest duration taken: a year. Longer ones are typos, and past ~2.7e17 ms the next poll's
 * time is no date at all (the poller failed with "Invalid time value" after its first poll).
 */
const MAX_DURATION_MS = 366 * UNIT_MS.d!;

/** `2h`, `30m`, `1h30m`, `90s`, `1d` → milliseconds. */
export function parseDuration(text: string, option?: string): number {
  const named = option ? `${option}: ` : '';
  const trimmed = text.trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== trimmed.length || total <= 0) {
    throw new CliError(`${named}invalid duration "${text}" (examples: 2h, 30m, 1h30m, 90s)`);
  }
  if (total > MAX_DURATION_MS) throw new CliError(`${named}duration "${text}" is longer than a year (at most 366d)`);
  return total;
}

export function resolveDirs(opts: { raw?: string; data: string }): { rawDir: string; dataDir: string } {
  const dataDir = resolve(opts.data);
  return { dataDir, rawDir: resolve(opts.raw ?? defaultRawDir(dataDir)) };
}

/**
 * What a signal does once a command's work is done and the process only winds down (closing its
 * database, flushing its output): it ends the process at once with the status the command set
 * (0 when it set none). Without a handler then, the signal killed it, and cron or systemd saw
 * "killed by SIGTERM" (143), a failure, from an update that had published.
 */
function windDown(): void {
  process.exit(process.exitCode ?? 0);
}

/**
 * Aborts on the first SIGTERM/SIGINT (the current request stops, cursors stay saved). `dispose`
 * hands the signals over to windDown (installed once per process).
 */
export function abortOnSignals(onSignal?: (signal: NodeJS.Signals) => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    // A second signal means "now": do not wait for a build that cannot be interrupted.
    if (controller.signal.aborted) process.exit(130);
    onSignal?.(sig);
    controller.abort();
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
      if (!process.listeners('SIGTERM').includes(windDown)) process.on('SIGTERM', windDown);
      if (!process.listeners('SIGINT').includes(windDown)) process.on('SIGINT', windDown);
    },
  };
}
