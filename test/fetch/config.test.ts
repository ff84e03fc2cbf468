import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSourceList } from '../../cli/fetch/cli-options.ts';
import { DEFAULT_CONFIG, SOURCE_NAMES, loadFetchConfig } from '../../cli/fetch/config.ts';
import { nextStatus } from '../../cli/fetch/status.ts';

const EXAMPLE = fileURLToPath(new URL('../../config/sources.example.json', import.meta.url));

async function configFile(value: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'vulnintel-config-')), 'sources.json');
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('fetch configuration', () => {
  it('the documented example file is valid and names every source', async () => {
    const config = await loadFetchConfig(EXAMPLE);
    expect(Object.keys(config.sources).sort()).toEqual([...SOURCE_NAMES].sort());
    expect(config.http.urlRewrites).toEqual([]);
    expect(config.sources.csaf.providers.map((p) => p.vendor)).toEqual(['redhat', 'cisco', 'siemens', 'suse', 'microsoft', 'cisa']);
  });

  it('merges overrides over the defaults, key by key', async () => {
    const config = await loadFetchConfig(await configFile({ sources: { kev: { url: 'https://mirror.corp/kev.json' } } }));
    expect(config.sources.kev.url).toBe('https://mirror.corp/kev.json');
    expect(config.sources.nvd).toEqual(DEFAULT_CONFIG.sources.nvd);
  });

  it('fetches EPSS from its current home by default (the old host answers 301), still overridable', async () => {
    expect(new URL(DEFAULT_CONFIG.sources.epss.url).host).toBe('epss.empiricalsecurity.com');
    expect(new URL(DEFAULT_CONFIG.sources.epss.url).pathname).toBe('/epss_scores-current.csv.gz');
    expect((await loadFetchConfig(EXAMPLE)).sources.epss.url).toBe(DEFAULT_CONFIG.sources.epss.url);
    const mirrored = await loadFetchConfig(await configFile({ sources: { epss: { url: 'https://mirror.corp/epss.csv.gz' } } }));
    expect(mirrored.sources.epss.url).toBe('https://mirror.corp/epss.csv.gz');
  });

  it('reads a file saved with a UTF-8 byte order mark (it was "not valid JSON", quoting an invisible character)', async () => {
    const config = await loadFetchConfig(await configFile(`\uFEFF${JSON.stringify({ sources: { kev: { url: 'https://mirror.corp/kev.json' } } })}`));
    expect(config.sources.kev.url).toBe('https://mirror.corp/kev.json');
  });

  it('names the key of a typo or a bad value', async () => {
    await expect(loadFetchConfig(await configFile({ sources: { nvdd: {} } }))).rejects.toThrow(/sources: Unrecognized key.*nvdd/);
    await expect(loadFetchConfig(await configFile({ sources: { nvd: { windowDays: 200 } } }))).rejects.toThrow(/sources\.nvd\.windowDays/);
    await expect(loadFetchConfig(await configFile('{ not json'))).rejects.toThrow(/is not valid JSON/);
    // A key at the top names where it is (the message read "config FILE: : Unrecognized key").
    await expect(loadFetchConfig(await configFile({ kev: { url: 'https://mirror.corp/kev.json' } }))).rejects.toThrow(/: the top level: Unrecognized key.*"kev"/);
    // A URL no fetcher reads is refused here, naming the key (it failed at fetch time, after four attempts).
    for (const bad of ['ftp://x/kev.json', 'file:///etc/passwd']) {
      await expect(loadFetchConfig(await configFile({ sources: { kev: { url: bad } } })), bad).rejects.toThrow(/sources\.kev\.url.*http:\/\/ or https:\/\//);
    }
  });

  it('parses --sources, accepting the raw-layout key spelling too', () => {
    expect(parseSourceList(undefined)).toEqual(SOURCE_NAMES);
    expect(parseSourceList('nvd, pocInGithub,nvd')).toEqual(['nvd', 'poc-in-github']);
    expect(() => parseSourceList('nvd,shodan')).toThrow(/unknown source "shodan"/);
    // Commas alone name nothing: refused (it fetched nothing and exited 0).
    expect(() => parseSourceList(',')).toThrow(/--sources ",": names no source/);
    // Empty (an unset variable in `--sources "$SOURCES"`): refused; it fetched every source.
    for (const empty of ['', '  ']) expect(() => parseSourceList(empty), JSON.stringify(empty)).toThrow(`--sources "${empty}": names no source`);
  });
});

describe('status records', () => {
  const t = (s: string) => new Date(s);
  it('a failure keeps the last good watermark, counts and success time, and says why', () => {
    const ok = nextStatus(null, 'kev', {
      startedAt: t('2026-10-01T00:00:00Z'),
      finishedAt: t('2026-10-01T00:00:02Z'),
      outcome: { records: 1400, bytes: 1_250_000, watermark: '2026-09-30T17:00:00.000Z', unchanged: false },
    });
    const failed = nextStatus(ok, 'kev', { startedAt: t('2026-10-02T00:00:00Z'), finishedAt: t('2026-10-02T00:00:30Z'), error: 'GET …: HTTP 503' });
    expect(failed).toMatchObject({
      ok: false,
      last_attempt: '2026-10-02T00:00:00.000Z',
      last_success: '2026-10-01T00:00:02.000Z',
      watermark: '2026-09-30T17:00:00.000Z',
      records: 1400,
      error: 'GET …: HTTP 503',
      duration_ms: 30_000,
    });
  });
});
