/**
 * Snapshot lifecycle against a real server (DESIGN §2, §6): 503 NO_SNAPSHOT until a snapshot is
 * published, picked up without a restart; a new publication swapped in while clients loop
 * requests, without one failed request; the replaced snapshot closed once its requests end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { emptyDataDir, publishSampleCopy, startOn, type SampleServer } from './server-harness.ts';

let s: SampleServer | undefined;

afterEach(async () => {
  await s?.server.close();
  s = undefined;
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('snapshot lifecycle', () => {
  it('answers 503 NO_SNAPSHOT before any snapshot, then serves one published later without a restart', async () => {
    const dataDir = await emptyDataDir();
    s = await startOn(dataDir, 'none');
    const before = await s.get('/api/v1/public/cves');
    expect(before.status).toBe(503);
    expect(before.headers.get('x-snapshot')).toBe('none');
    expect(before.headers.get('access-control-allow-origin')).toBe('*');
    expect(before.headers.get('cache-control')).toBe('no-store');
    expect(((await before.json()) as { code: string }).code).toBe('NO_SNAPSHOT');
    // The document of the API does not need data.
    expect((await s.get('/api/v1/openapi.json')).status).toBe(200);

    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    await waitFor(async () => (await s!.get('/api/v1/public/cves?limit=1')).status === 200);
    const after = await s.get('/api/v1/public/cves/summary');
    expect(after.headers.get('x-snapshot')).toBe('20990101T000000Z-aaaa');
    expect(((await after.json()) as { snapshot: { build_id: string } }).snapshot.build_id).toBe('20990101T000000Z-aaaa');
  });

  it('swaps to a newly published snapshot under load without a failed request, then closes the old one', async () => {
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    // The fallback poll is made too slow to matter: fs.watch must notice the publication.
    s = await startOn(dataDir, '20990101T000000Z-aaaa', { watchIntervalMs: 60_000 });
    const old = s.server.store.current!;
    expect(old.buildId).toBe('20990101T000000Z-aaaa');

    const seen = new Map<string, number>();
    const failures: string[] = [];
    let stop = false;
    const paths = [
      '/api/v1/public/cves?limit=20',
      '/api/v1/public/cves?search=linux%20kernel&severity=HIGH,CRITICAL',
      '/api/v1/public/cves/CVE-2024-3400',
      '/api/v1/public/cves/summary',
      '/api/v1/public/cves/export.ndjson',
      '/api/v1/public/cves/match?vendor=linux',
    ];
    const loop = async (k: number) => {
      for (let i = k; !stop; i++) {
        const path = paths[i % paths.length]!;
        try {
          const res = await s!.get(path);
          const body = await res.text();
          if (res.status !== 200 || body.length === 0) failures.push(`${path} → ${res.status} ${body.slice(0, 120)}`);
          const id = res.headers.get('x-snapshot') ?? 'missing';
          seen.set(id, (seen.get(id) ?? 0) + 1);
        } catch (err) {
          failures.push(`${path} → ${(err as Error).message}`);
        }
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    await waitFor(async () => (seen.get('20990101T000000Z-aaaa') ?? 0) > 20);
    await publishSampleCopy(dataDir, '20990101T000000Z-bbbb');
    await waitFor(async () => (seen.get('20990101T000000Z-bbbb') ?? 0) > 20);
    stop = true;
    await Promise.all(loops);

    expect(failures).toEqual([]);
    expect([...seen.keys()].sort()).toEqual(['20990101T000000Z-aaaa', '20990101T000000Z-bbbb']);
    expect(s.server.store.current!.buildId).toBe('20990101T000000Z-bbbb');
    // The replaced snapshot is closed once the requests that held it are done.
    await Promise.race([old.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('old snapshot never closed')), 5000))]);
    expect(old.inUse).toBe(0);
  });

  it('names in X-Snapshot the snapshot a page was read from, when a swap happens while it renders', async () => {
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    s = await startOn(dataDir, '20990101T000000Z-aaaa', { watchIntervalMs: 60_000 });
    const old = s.server.store.current!;
    // The page's read of the old snapshot is held until the new one is served.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const memo = old.memo.bind(old);
    old.memo = <T>(key: string, compute: () => Promise<T>) => gate.then(() => memo(key, compute));
    const page = s.get('/pulse/cves/CVE-2024-3400');
    await waitFor(async () => old.inUse > 0);
    await publishSampleCopy(dataDir, '20990101T000000Z-bbbb');
    await s.server.store.sync();
    expect(s.server.store.current!.buildId).toBe('20990101T000000Z-bbbb');
    open();
    const res = await page;
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('Snapshot <code>20990101T000000Z-aaaa</code>');
    expect(res.headers.get('x-snapshot')).toBe('20990101T000000Z-aaaa');
  });

  it('started on a published snapshot it cannot open, says so: health names it and why, a 503 does not say none is published', async () => {
    const { truncate, stat } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    const records = join(dataDir, 'snapshots', '20990101T000000Z-aaaa', 'serving', 'records.ndjson');
    await truncate(records, Math.floor((await stat(records)).size / 2));
    s = await startOn(dataDir, 'none', { watchIntervalMs: 60_000 });
    expect(s.server.store.current).toBeNull();

    const health = await s.json<{ status: string; snapshot: unknown; snapshot_error: { build_id: string; error: string; since: string } | null }>('/api/v1/health');
    expect(health.body.status).toBe('no_snapshot');
    expect(health.body.snapshot).toBeNull();
    expect(health.body.snapshot_error?.build_id).toBe('20990101T000000Z-aaaa');
    // The file at fault, relative to the data folder (the log has the whole path).
    expect(health.body.snapshot_error?.error).toMatch(/^snapshots\/20990101T000000Z-aaaa\/serving\/records\.ndjson: \d+ bytes/);
    expect(Number.isNaN(Date.parse(health.body.snapshot_error!.since))).toBe(false);

    // It said "No snapshot is published yet: run `vulnintel build`", of a snapshot published.
    for (const path of ['/api/v1/public/cves?limit=1', '/api/v1/public/cves/CVE-2024-3400']) {
      const res = await s.json<{ code: string; message: string }>(path);
      expect(res.status, path).toBe(503);
      expect(res.body.code, path).toBe('NO_SNAPSHOT');
      expect(res.body.message, path).toContain('The published snapshot 20990101T000000Z-aaaa could not be opened');
      expect(res.body.message, path).not.toContain('No snapshot is published yet');
    }
    const page = await s.get('/pulse/cves');
    expect(page.status).toBe(503);
    const html = await page.text();
    expect(html).toContain('The published snapshot 20990101T000000Z-aaaa could not be opened');
    expect(html).not.toContain('No snapshot has been published yet');

    // A good one published: served, and nothing left to report.
    await publishSampleCopy(dataDir, '20990102T000000Z-bbbb');
    await s.server.store.sync();
    const after = await s.json<{ status: string; snapshot: { build_id: string }; snapshot_error: unknown }>('/api/v1/health');
    expect(after.body.status).toBe('ok');
    expect(after.body.snapshot.build_id).toBe('20990102T000000Z-bbbb');
    expect(after.body.snapshot_error).toBeNull();
  });

  it('says in its health which published snapshot it could not open while it serves an older one, until CURRENT names the served one again', async () => {
    const { cp, rm, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    s = await startOn(dataDir, '20990101T000000Z-aaaa', { watchIntervalMs: 60_000 });
    type Health = { status: string; snapshot: { build_id: string }; snapshot_error: { build_id: string | null; error: string } | null };
    expect((await s.json<Health>('/api/v1/health')).body.snapshot_error).toBeNull();

    const snapshots = join(dataDir, 'snapshots');
    await cp(join(snapshots, '20990101T000000Z-aaaa'), join(snapshots, '20990102T000000Z-bbbb'), { recursive: true });
    await rm(join(snapshots, '20990102T000000Z-bbbb', 'serving', 'ids.txt'));
    await writeFile(join(dataDir, 'CURRENT'), '20990102T000000Z-bbbb\n');
    await s.server.store.sync();
    let health = (await s.json<Health>('/api/v1/health')).body;
    expect(health.status).toBe('ok');
    expect(health.snapshot.build_id).toBe('20990101T000000Z-aaaa');
    expect(health.snapshot_error?.build_id).toBe('20990102T000000Z-bbbb');
    expect(health.snapshot_error?.error).toContain('snapshots/20990102T000000Z-bbbb/serving/ids.txt');

    await writeFile(join(dataDir, 'CURRENT'), '../snapshots/20990102T000000Z-bbbb\n');
    await s.server.store.sync();
    health = (await s.json<Health>('/api/v1/health')).body;
    expect(health.snapshot_error?.build_id).toBeNull();
    expect(health.snapshot_error?.error).toBe('CURRENT: "../snapshots/20990102T000000Z-bbbb" is not a build id (run `vulnintel build` to publish one)');

    await writeFile(join(dataDir, 'CURRENT'), '20990101T000000Z-aaaa\n');
    await s.server.store.sync();
    health = (await s.json<Health>('/api/v1/health')).body;
    expect(health.snapshot.build_id).toBe('20990101T000000Z-aaaa');
    expect(health.snapshot_error).toBeNull();
  });

  it('keeps serving when CURRENT names a snapshot that cannot be opened', async () => {
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    s = await startOn(dataDir, '20990101T000000Z-aaaa');
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await writeFile(join(dataDir, 'CURRENT'), '20990101T000000Z-missing\n');
    await s.server.store.sync();
    const res = await s.get('/api/v1/public/cves?limit=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-snapshot')).toBe('20990101T000000Z-aaaa');
  });

  it('keeps serving, with a log line, when CURRENT holds a path to a snapshot instead of a build id', async () => {
    const { cp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { pino } = await import('pino');
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    const logged: Array<{ msg: string; err?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) });
    s = await startOn(dataDir, '20990101T000000Z-aaaa', { logger, watchIntervalMs: 60_000 });
    // A real snapshot reached through a path: it was opened and served, X-Snapshot naming the path.
    await cp(join(dataDir, 'snapshots', '20990101T000000Z-aaaa'), join(dataDir, 'snapshots', '20990102T000000Z-bbbb'), { recursive: true });
    const pointer = join(dataDir, 'CURRENT');
    await writeFile(pointer, '../snapshots/20990102T000000Z-bbbb\n');
    await s.server.store.sync();
    expect(s.server.store.current!.buildId).toBe('20990101T000000Z-aaaa');
    const res = await s.get('/api/v1/public/cves?limit=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-snapshot')).toBe('20990101T000000Z-aaaa');
    const line = logged.find((l) => l.msg === 'cannot read CURRENT; keeping the served snapshot');
    expect(line?.err).toBe(`${pointer}: "../snapshots/20990102T000000Z-bbbb" is not a build id (run \`vulnintel build\` to publish one)`);
  });

  it('keeps serving the old snapshot, with a log line, when the new one has a serving file cut short', async () => {
    const { cp, truncate, stat, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { pino } = await import('pino');
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    const logged: Array<{ msg: string; buildId?: string; err?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) });
    // Polled only by the explicit sync below: the test decides when CURRENT is read.
    s = await startOn(dataDir, '20990101T000000Z-aaaa', { logger, watchIntervalMs: 60_000 });
    // What a copy to this host still running, or a full disk, leaves: the folder complete but a
    // file short. Each was swapped in, and every record, answer or search past the cut was a 500.
    for (const file of ['records.ndjson', 'enrichment.ndjson', 'postings.bin']) {
      const id = `20990102T000000Z-${file.replace(/\W/g, '')}`;
      await cp(join(dataDir, 'snapshots', '20990101T000000Z-aaaa'), join(dataDir, 'snapshots', id), { recursive: true });
      const cut = join(dataDir, 'snapshots', id, 'serving', file);
      await truncate(cut, Math.floor((await stat(cut)).size / 2));
      await writeFile(join(dataDir, 'CURRENT'), `${id}\n`);
      await s.server.store.sync();
      expect(s.server.store.current!.buildId, file).toBe('20990101T000000Z-aaaa');
      for (const path of ['/api/v1/public/cves/CVE-2024-3400', '/api/v1/public/cves/CVE-2024-3400/enrichment', '/api/v1/public/cves?search=linux']) {
        const res = await s.get(path);
        expect(res.status, `${file}: ${path}`).toBe(200);
        expect(res.headers.get('x-snapshot'), `${file}: ${path}`).toBe('20990101T000000Z-aaaa');
      }
      const line = logged.find((l) => l.buildId === id);
      expect(line?.msg, file).toBe('snapshot failed to open; keeping the served one');
      expect(line?.err, file).toContain(cut);
    }
  });

  it('answers package questions from its tables when the snapshot\'s packages.ndjson is cut short', async () => {
    const { readFile, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    const file = join(dataDir, 'snapshots', '20990101T000000Z-aaaa', 'serving', 'packages.ndjson');
    const whole = await readFile(file, 'utf8');
    const questions = ['/api/v1/public/packages/npm/body-parser?version=1.20.2', '/api/v1/public/packages/PyPI/mlflow?version=2.16.5', '/api/v1/public/packages/npm/body-parser'];
    s = await startOn(dataDir, '20990101T000000Z-aaaa');
    const expected = await Promise.all(questions.map(async (q) => (await s!.get(q)).text()));
    await s.server.close();
    // Cut inside a line: every package question was a 500. At a line's end: rows gone, "not affected".
    for (const cut of [whole.slice(0, Math.floor(whole.length / 2)), `${whole.split('\n').slice(0, 2).join('\n')}\n`]) {
      await writeFile(file, cut);
      s = await startOn(dataDir, '20990101T000000Z-aaaa');
      for (const [i, q] of questions.entries()) {
        const res = await s.get(q);
        expect(res.status, q).toBe(200);
        expect(await res.text(), q).toBe(expected[i]);
      }
      await s.server.close();
      s = undefined;
    }
  });

  it('close() lets a request in flight finish, then refuses connections', async () => {
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20990101T000000Z-aaaa');
    s = await startOn(dataDir, '20990101T000000Z-aaaa');
    const snapshot = s.server.store.current!;
    const url = s.base;
    // The export has started (its headers arrived, its body not yet read) when close() is called:
    // a fixed sleep instead raced the connection itself on a busy machine.
    const started = await s.get('/api/v1/public/cves/export.ndjson');
    const server = s.server;
    s = undefined;
    const closing = server.close();
    const done = { status: started.status, lines: (await started.text()).trim().split('\n').length };
    await closing;
    expect(done.status).toBe(200);
    expect(done.lines).toBeGreaterThan(10);
    await snapshot.closed;
    await expect(fetch(`${url}/api/v1/public/cves`)).rejects.toThrow();
  });
});
