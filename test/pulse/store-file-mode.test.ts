/**
 * The SQLite store's file holds every webhook's signing secret and every subscriber's address:
 * it is created readable by its owner only, in a folder only its owner can enter, and SQLite's
 * -wal and -shm files take the same mode (they were 0644 in a 0755 folder).
 */
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPulseStore } from '../../lib/pulse/store/open.ts';

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-mode-'));
  // A data folder others may read, as a served one often is (its snapshots are public data).
  await chmod(dataDir, 0o755);
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('the SQLite store file', () => {
  it('is created 0600 (its -wal and -shm too) in a 0700 folder', async () => {
    const store = await openPulseStore(undefined, dataDir);
    try {
      await store.hitCounter('create:caller:test', new Date().toISOString());
      const folder = join(dataDir, 'pulse');
      expect(await modeOf(folder)).toBe('700');
      const files = (await readdir(folder)).sort();
      expect(files).toEqual(['pulse.db', 'pulse.db-shm', 'pulse.db-wal']);
      for (const file of files) expect(`${file} ${await modeOf(join(folder, file))}`).toBe(`${file} 600`);
    } finally {
      await store.close();
    }
  });
});
