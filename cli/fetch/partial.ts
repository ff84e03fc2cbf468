/**
 * What a broken download leaves for the next run, so a ~500 MB file cut at 90 % is not asked
 * for from byte 0 again: the bytes received (`.<name>.partial` beside the destination) and what
 * identifies them (`.<name>.partial.json`: the URL and the strong validator the next run sends
 * as If-Range, so bytes of a file that changed meanwhile are never continued). Dot names: no
 * raw reader takes them for data.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeJsonAtomic } from './atomic.ts';

export interface PartialFiles {
  /** The bytes received so far; also the temporary file a download writes. */
  data: string;
  meta: string;
}

interface PartialMeta {
  url: string;
  /** ETag (strong) or Last-Modified of the answer the bytes came from. */
  validator: string;
}

/** A partial file not resumed for this long belongs to a file no longer asked for. */
const STALE_MS = 86_400_000;

const PARTIAL_NAME = /^\.(.+)\.partial(?:\.json)?$/;

export function partialFilesFor(dest: string): PartialFiles {
  const dir = dirname(dest);
  const name = basename(dest);
  return { data: join(dir, `.${name}.partial`), meta: join(dir, `.${name}.partial.json`) };
}

/**
 * The bytes kept for `url` and their validator, or null (nothing kept, or kept for another URL
 * or without a validator: then dropped).
 */
export async function loadPartial(files: PartialFiles, url: string): Promise<{ bytes: number; validator: string } | null> {
  const meta = await readFile(files.meta, 'utf8').then(
    (text) => JSON.parse(text) as Partial<PartialMeta>,
    () => null,
  );
  const size = (await stat(files.data).catch(() => null))?.size ?? 0;
  if (meta?.url === url && typeof meta.validator === 'string' && meta.validator && size > 0) return { bytes: size, validator: meta.validator };
  await dropPartial(files);
  return null;
}

export async function savePartialMeta(files: PartialFiles, url: string, validator: string): Promise<void> {
  await writeJsonAtomic(files.meta, { url, validator } satisfies PartialMeta);
}

export async function dropPartial(files: PartialFiles, keepData = false): Promise<void> {
  await rm(files.meta, { force: true });
  if (!keepData) await rm(files.data, { force: true });
}

/**
 * Drops the partial files of other destinations in `dest`'s folder untouched for a day: a
 * download that changed name (the CVE List baseline of a later day, a newer CSAF archive) would
 * otherwise keep hundreds of MB forever.
 */
export async function dropStalePartials(dest: string, now = Date.now()): Promise<void> {
  const dir = dirname(dest);
  const own = basename(dest);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = PARTIAL_NAME.exec(name);
    if (!m || m[1] === own) continue;
    const s = await stat(join(dir, name)).catch(() => null);
    if (s && now - s.mtimeMs > STALE_MS) await rm(join(dir, name), { force: true });
  }
}
