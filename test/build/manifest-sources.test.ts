/**
 * The manifest's `sources`: each staged source's newest record and detail, read from the
 * staging tables right after they are loaded (the later steps drop them). Checked against
 * the bundled sample's raw files, read here on their own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { buildCorpus, SAMPLE_RAW } from '../helpers/sample-snapshot.ts';

interface SourceEntry {
  files: number;
  records: number;
  newest_record: string | null;
  detail: Record<string, string | number | null>;
}

let sources: Record<string, SourceEntry>;

beforeAll(async () => {
  const { dataDir } = await buildCorpus();
  const id = await readCurrentBuildId(dataDir);
  sources = JSON.parse(readFileSync(join(snapshotsDir(dataDir), id!, 'manifest.json'), 'utf8')).sources;
});

/** NVD writes times without a zone (UTC): as the staging rows have them, with milliseconds and Z. */
const nvdUtc = (time: string) => new Date(`${time}Z`).toISOString();

describe('manifest sources', () => {
  it('NVD: the newest lastModified of the pages', () => {
    const dir = join(SAMPLE_RAW, 'nvd');
    const times = readdirSync(dir).flatMap((file) =>
      (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { vulnerabilities: { cve: { lastModified: string } }[] }).vulnerabilities.map((v) =>
        nvdUtc(v.cve.lastModified),
      ),
    );
    expect(sources.nvd!.newest_record).toBe(times.sort().at(-1));
  });

  it('KEV and EPSS: the newest date and the catalogue and model versions', () => {
    const kev = JSON.parse(readFileSync(join(SAMPLE_RAW, 'kev', 'known_exploited_vulnerabilities.json'), 'utf8')) as {
      catalogVersion: string;
      vulnerabilities: { dateAdded: string }[];
    };
    expect(sources.kev!.newest_record).toBe(kev.vulnerabilities.map((v) => v.dateAdded).sort().at(-1));
    expect(sources.kev!.detail.catalog_version).toBe(kev.catalogVersion);
    const header = readFileSync(join(SAMPLE_RAW, 'epss', 'epss_scores-current.csv'), 'utf8').split('\n')[0]!;
    const model = /model_version:([^,]+)/.exec(header)![1];
    const scoreDate = /score_date:(\d{4}-\d{2}-\d{2})/.exec(header)![1];
    expect(sources.epss!.detail.model_version).toBe(model);
    expect(sources.epss!.newest_record).toBe(scoreDate);
  });

  it('every staged source with a freshness query has a newest record', () => {
    for (const key of ['nvd', 'cvelist', 'kev', 'epss', 'ghsa', 'csaf', 'msrc', 'exploitdb', 'metasploit', 'poc-in-github']) {
      expect(sources[key]?.newest_record, key).toMatch(/^\d{4}-\d{2}-\d{2}/);
    }
    expect(Number(sources.csaf!.detail.vendors)).toBeGreaterThan(1);
  });
});
