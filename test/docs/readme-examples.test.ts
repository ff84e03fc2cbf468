/**
 * The README's examples, run as a new user runs them against the bundled sample (`make serve`):
 * the DuckDB query straight on the Parquet files, the `vulnintel scan` table, the package answer
 * and the change feed's example. Each output the README shows must be what the sample gives.
 */
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOn, startSampleServer, type SampleServer } from '../api/server-harness.ts';
import { buildChangesCorpus } from '../helpers/changes-corpus.ts';
import { cli } from '../helpers/cli.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let readme: string;

/** The fenced blocks of the README (info string, body), in order. */
function blocks(): Array<{ info: string; body: string }> {
  return [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1]!, body: m[2]! }));
}

/** The first block of `info` whose body holds `marker`. */
function block(info: string, marker: string): string {
  const found = blocks().find((b) => b.info === info && b.body.includes(marker));
  if (!found) throw new Error(`README: no \`\`\`${info} block holding ${marker}`);
  return found.body;
}

beforeAll(async () => {
  readme = await readFile(join(ROOT, 'README.md'), 'utf8');
});

describe('README: Querying the Parquet directly', () => {
  it('the DuckDB query on the snapshot files runs, from a folder holding data/, and finds the 2024 CRITICAL CVEs', async () => {
    const sql = block('sql', 'read_parquet(');
    const { dataDir } = await buildCorpus();
    const cwd = await mkdtemp(join(tmpdir(), 'vulnintel-readme-'));
    await symlink(dataDir, join(cwd, 'data'));
    const run = await cli(['sql', '--data', dataDir, '--format', 'json', '--', sql], { cwd });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<{ cve_id: string; service_score: number; summary: string }>;
    expect(rows.map((r) => r.cve_id)).toContain('CVE-2024-3400');
    for (const row of rows) {
      expect(row.cve_id).toMatch(/^CVE-2024-/);
      expect(row.service_score).toBeGreaterThanOrEqual(9);
      expect(row.summary).toMatch(/^Risk /);
    }
  });
});

describe('README: Am I affected?', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });

  it('every line of the scan table shown is a line of the real table ("…" ends an abridged line)', async () => {
    const shown = block('', 'Not judged (').split('\n').filter((l) => l !== '' && l !== '…');
    const { dataDir } = await buildCorpus();
    const run = await cli(['scan', 'test/fixtures/sbom/sample.cdx.json', '--data', dataDir], { cwd: ROOT });
    const real = run.stdout.split('\n');
    for (const line of shown) {
      if (line.endsWith('…')) expect(real.some((r) => r.startsWith(line.slice(0, -1))), line).toBe(true);
      else expect(real, line).toContain(line);
    }
  });

  it('the mlflow answer shown holds the real answer’s values', async () => {
    const shown = JSON.parse(block('json', '"name": "mlflow"')) as Record<string, unknown>;
    const { status, body } = await api.json('/api/v1/public/packages/PyPI/mlflow?version=2.16.5');
    expect(status).toBe(200);
    expect(body).toMatchObject(shown);
  });
});

describe('README: the change feed', () => {
  it('the example request gives nothing on the sample, and the line shown once a build saw the KEV addition', async () => {
    const example = block('sh', '/api/v1/public/changes?');
    const path = /localhost:8080(\/api\/v1\/public\/changes\?[^']+)'/.exec(example)![1]!;
    const shownWhy = [...example.matchAll(/^# "(.+)"$/gm)].map((m) => m[1]);

    const sample = await startSampleServer();
    try {
      expect((await sample.json<{ changes: unknown[] }>(path)).body.changes).toEqual([]);
    } finally {
      await sample.server.close();
    }

    const corpus = await buildChangesCorpus();
    const api = await startOn(corpus.dataDir, corpus.second.buildId);
    try {
      const { body } = await api.json<{ changes: Array<{ why: string }> }>(path);
      expect(body.changes.map((c) => c.why)).toEqual(shownWhy);
    } finally {
      await api.server.close();
    }
  }, 240_000);
});
