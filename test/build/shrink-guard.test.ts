/**
 * The shrink guard (cli/build/shrink-guard.ts): a raw folder emptied or cut short must not
 * publish a snapshot that lost most of a source; `--allow-shrink` publishes it on purpose.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../cli/build/build.ts';
import { shrunkSources, SHRINK_GUARD_MIN_RECORDS } from '../../cli/build/shrink-guard.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import type { StageResult } from '../../cli/parse/source.ts';
import { CliError } from '../../lib/errors.ts';
import { readCurrentBuildId } from '../../lib/snapshot-layout.ts';
import { cli } from '../helpers/cli.ts';
import { writeCorpus, type NvdCase } from '../helpers/raw-corpus.ts';

process.env.VULNINTEL_QUIET = '1';

const staged = (records: number): StageResult => ({ records, files: 1 });

describe('shrunkSources', () => {
  it('names each source of at least the minimum that kept less than half, by raw folder', () => {
    const before = { nvd: 340_000, kev: 1_500, msrc: 120, 'poc-in-github': 16_000, epss: 300_000, ghsa: 25_000 };
    const now = { nvd: staged(0), kev: staged(1_400), msrc: staged(0), pocInGithub: staged(7_999), epss: staged(150_000) };
    expect(shrunkSources(before, now)).toEqual([
      // ghsa: absent from this build (its folder gone): none of its records stayed.
      { source: 'ghsa', before: 25_000, now: 0 },
      { source: 'nvd', before: 340_000, now: 0 },
      { source: 'poc-in-github', before: 16_000, now: 7_999 },
    ]);
  });

  it('lets a small source go (the sample, tests) and a source that grew', () => {
    expect(shrunkSources({ msrc: SHRINK_GUARD_MIN_RECORDS - 1 }, {})).toEqual([]);
    expect(shrunkSources({ msrc: SHRINK_GUARD_MIN_RECORDS }, {})).toEqual([{ source: 'msrc', before: SHRINK_GUARD_MIN_RECORDS, now: 0 }]);
    expect(shrunkSources({ nvd: 2_000 }, { nvd: staged(3_000) })).toEqual([]);
  });
});

describe('a build from a raw folder cut short', () => {
  const cases = (n: number): NvdCase[] =>
    Array.from({ length: n }, (_, i) => ({ id: `CVE-2024-${String(10_000 + i)}` }));
  let data: string;
  let shortRaw: string;
  let firstId: string;

  beforeAll(async () => {
    data = await mkdtemp(join(tmpdir(), 'vulnintel-shrink-'));
    const fullRaw = await writeCorpus({ nvd: cases(1_200) });
    shortRaw = await writeCorpus({ nvd: cases(500) });
    firstId = (await buildSnapshot(await resolveBuildOptions({ raw: fullRaw, data }))).buildId;
  }, 120_000);

  it('publishes nothing and names the source, both counts and the way out', async () => {
    const refused = await buildSnapshot(await resolveBuildOptions({ raw: shortRaw, data })).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CliError);
    const message = (refused as Error).message;
    expect(message).toContain(`nvd: 500 records in ${join(shortRaw, 'nvd')}, the published snapshot ${firstId} has 1,200`);
    expect(message).toContain('nothing published');
    expect(message).toContain('--allow-shrink');
    expect(await readCurrentBuildId(data)).toBe(firstId);
    // No work folder left behind.
    expect((await readdir(data)).filter((name) => name.startsWith('.build-'))).toEqual([]);
  }, 120_000);

  it('`vulnintel build --allow-shrink` publishes it', async () => {
    const refused = await cli(['build', '--raw', shortRaw, '--data', data]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nvd: 500 records');
    expect(await readCurrentBuildId(data)).toBe(firstId);
    const allowed = await cli(['build', '--raw', shortRaw, '--data', data, '--allow-shrink']);
    expect(allowed.stderr).toBe('');
    expect(allowed.code).toBe(0);
    const current = await readCurrentBuildId(data);
    expect(current).not.toBe(firstId);
    await rm(data, { recursive: true, force: true });
  }, 120_000);
});
