/**
 * Builds a raw corpus (by default the bundled `data/sample/`) into a fresh temporary data
 * folder, once per test process per corpus, and returns where it was published.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSnapshot } from '../../cli/build/build.ts';
import type { BuildResult } from '../../cli/build/options.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';

export const SAMPLE_RAW = resolve(import.meta.dirname, '..', '..', 'data', 'sample');

const builds = new Map<string, Promise<{ dataDir: string; result: BuildResult }>>();

export function buildCorpus(rawDir = SAMPLE_RAW): Promise<{ dataDir: string; result: BuildResult }> {
  let pending = builds.get(rawDir);
  if (!pending) {
    pending = (async () => {
      process.env.VULNINTEL_QUIET = '1';
      const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-test-'));
      const options = await resolveBuildOptions({ raw: rawDir, data: dataDir, keep: 3 });
      const result = await buildSnapshot(options);
      return { dataDir, result };
    })();
    builds.set(rawDir, pending);
  }
  return pending;
}
