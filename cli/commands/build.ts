/** `vulnintel build`: resolves the build parameters, then runs the pipeline. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { withoutBom } from '../../lib/bom.ts';
import { CliError } from '../../lib/errors.ts';
import { defaultRawDir } from '../../lib/paths.ts';
import { buildSnapshot } from '../build/build.ts';
import type { BuildOptions } from '../build/options.ts';

/**
 * Optional `<raw>/_build.json`: build parameters that belong to a corpus (the bundled sample
 * lowers the `same_product` evidence threshold so its few CVEs can show `no_specific_key`).
 */
const corpusParameters = z
  .object({
    relatedProductThreshold: z.number().int().positive().optional(),
    missionWellbeing: z.enum(['low', 'medium', 'high']).optional(),
  })
  .strict();

export async function readCorpusParameters(rawDir: string): Promise<z.infer<typeof corpusParameters>> {
  const file = join(rawDir, '_build.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(withoutBom(text));
  } catch (err) {
    throw new CliError(`${file}: malformed JSON (${(err as Error).message})`);
  }
  const parsed = corpusParameters.safeParse(json);
  if (!parsed.success) throw new CliError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export async function resolveBuildOptions(opts: {
  raw?: string;
  data: string;
  keep?: number;
  threads?: number;
  memoryLimit?: string;
  allowShrink?: boolean;
}): Promise<BuildOptions> {
  const dataDir = resolve(opts.data);
  const rawDir = resolve(opts.raw ?? defaultRawDir(dataDir));
  const corpus = await readCorpusParameters(rawDir);
  return {
    rawDir,
    dataDir,
    keep: opts.keep ?? 3,
    threads: opts.threads,
    memoryLimit: opts.memoryLimit,
    relatedProductThreshold: corpus.relatedProductThreshold ?? 2000,
    missionWellbeing: corpus.missionWellbeing ?? 'medium',
    allowShrink: opts.allowShrink ?? false,
  };
}

export async function runBuild(opts: { raw?: string; data: string; keep: number; threads?: number; memoryLimit?: string; allowShrink?: boolean }): Promise<void> {
  const options = await resolveBuildOptions(opts);
  await buildSnapshot(options);
}
