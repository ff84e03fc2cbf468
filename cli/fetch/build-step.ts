/**
 * The build as `update` and `poll` call it: `buildSnapshot` from cli/build/build.ts, loaded
 * lazily (fetching must not pay for DuckDB), with the defaults of DESIGN §5–6.
 */
import { CliError } from '../../lib/errors.ts';
import type { BuildOptions, BuildResult } from '../build/options.ts';

export type BuildFn = (opts: BuildOptions) => Promise<BuildResult>;

export function defaultBuildOptions(rawDir: string, dataDir: string, keep = 3, allowShrink = false): BuildOptions {
  return { rawDir, dataDir, keep, relatedProductThreshold: 2000, missionWellbeing: 'medium', allowShrink };
}

/** The real build entry point, or a clear error when this checkout has none. */
export async function loadBuild(): Promise<BuildFn> {
  // A computed specifier: the build module is optional at type-check time.
  const specifier = '../build/build.ts';
  let mod: { buildSnapshot?: unknown };
  try {
    mod = (await import(specifier)) as { buildSnapshot?: unknown };
  } catch (err) {
    throw new CliError(`cannot load the build (cli/build/build.ts): ${(err as Error).message}`);
  }
  if (typeof mod.buildSnapshot !== 'function') throw new CliError('cli/build/build.ts does not export buildSnapshot');
  return mod.buildSnapshot as BuildFn;
}
