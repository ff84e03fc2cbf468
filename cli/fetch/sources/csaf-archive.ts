/**
 * First run of a CSAF directory provider that publishes an archive (Red Hat: tens of thousands
 * of advisories, otherwise one request each): `<directory>/archive_latest.txt` names a
 * `.tar.zst` of the whole tree (`<year>/<file>.json`); it is downloaded (resumable, like any
 * large file), decompressed with Node's own zstd (zlib.createZstdDecompress) and unpacked with
 * tar-stream into `csaf/<vendor>/<year>/<file>.json`, each file's mtime set to the day the
 * archive was made (archiveDate). The usual changes.csv pass then fetches only what changed
 * since that day.
 */
import { createReadStream } from 'node:fs';
import { readFile, readdir, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { extract } from 'tar-stream';
import { formatCount, progress } from '../../../lib/log.ts';
import { writeFileAtomic, writeJsonAtomic } from '../atomic.ts';
import { downloadToTemp } from '../download.ts';
import { FetchError } from '../errors.ts';
import { HttpStatusError } from '../http.ts';
import type { FetchContext } from './types.ts';

const MARKER = '_archive.json';

/**
 * Whether `vendorDir` should be filled from an archive: on a first run (no year folder yet),
 * with `--full`, or when a bootstrap was started and never finished.
 */
export async function needsBootstrap(vendorDir: string, full: boolean): Promise<boolean> {
  if (full) return true;
  const marker = await readFile(join(vendorDir, MARKER), 'utf8').then((t) => JSON.parse(t) as { finished?: string | null }, () => null);
  if (marker) return !marker.finished;
  const names = await readdir(vendorDir).catch(() => [] as string[]);
  return !names.some((n) => /^\d{4}$/.test(n));
}

export interface ArchiveBootstrap {
  archive: string;
  documents: number;
  bytes: number;
  /** Entries that were not CSAF documents, or did not parse: the changes.csv pass fetches them. */
  rejected: string[];
}

/** A tar member that is a document of the tree: `<year>/<file>.json` (a leading `./` allowed). */
export function archiveMemberPath(name: string): string | null {
  const m = /^(?:\.\/)?(\d{4})\/([A-Za-z0-9._+-]+\.json)$/.exec(name);
  return m ? `${m[1]}/${m[2]}` : null;
}

/**
 * The day an archive was made, from its name (`csaf_advisories_2024-07-07.tar.zst`), at 00:00 UTC.
 * Every change listed before that is in the archive; one listed from that day on may not be, and
 * is fetched (as anchore/vunnel reads Red Hat's archive). Its files are dated so, not by their tar
 * mtimes: a member dated a second before changes.csv dates it was fetched again (every such
 * document of tens of thousands), and one dated after the archive was made (a mirror that
 * repacked it) hid the changes listed since. Null for a name without a date (then the tar mtime).
 */
export function archiveDate(name: string): Date | null {
  const day = /(\d{4}-\d{2}-\d{2})\.tar\.zst$/.exec(name)?.[1];
  const at = day ? new Date(`${day}T00:00:00Z`) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

function zstdDecompressor(): NodeJS.ReadWriteStream {
  const create = (zlib as { createZstdDecompress?: () => NodeJS.ReadWriteStream }).createZstdDecompress;
  if (!create) throw new FetchError(`zstd archives need Node.js ≥ 22.15 (zlib.createZstdDecompress); this is ${process.version}`);
  return create();
}

/**
 * Bootstraps `vendorDir` from the archive of `directoryUrl`. Null when the provider publishes
 * no archive (archive_latest.txt answers 404/403): the caller fetches document by document.
 */
export async function bootstrapFromArchive(ctx: FetchContext, vendor: string, directoryUrl: string, vendorDir: string): Promise<ArchiveBootstrap | null> {
  const dir = directoryUrl.endsWith('/') ? directoryUrl : `${directoryUrl}/`;
  let name: string;
  try {
    const latest = await ctx.http.getBytes(`${dir}archive_latest.txt`, { signal: ctx.signal });
    name = latest.body.toString('utf8').trim();
  } catch (err) {
    if (err instanceof HttpStatusError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
  // Its content becomes a URL: only a plain file name in the same directory is accepted.
  if (!/^[A-Za-z0-9._-]+\.tar\.zst$/.test(name)) throw new FetchError(`${vendor} ${dir}archive_latest.txt: not an archive file name (${JSON.stringify(name.slice(0, 80))})`);
  const url = new URL(name, dir).toString();
  const got = await downloadToTemp(ctx.http, url, join(vendorDir, `_${name}`), { label: `csaf ${vendor} ${name}`, signal: ctx.signal });
  if (got.kind !== 'downloaded') throw new FetchError(`${url}: unexpected 304`);
  const result: ArchiveBootstrap = { archive: url, documents: 0, bytes: got.bytes, rejected: [] };
  const archived = archiveDate(name);
  // Marked before the first file is written: an interrupted unpack is started again next run.
  await writeJsonAtomic(join(vendorDir, MARKER), { archive: url, started: ctx.now().toISOString(), finished: null });
  const bar = progress(`csaf ${vendor} archive`, 0, 'documents');
  try {
    const unpack = extract();
    unpack.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => void chunks.push(c as Buffer));
      stream.on('error', next);
      stream.on('end', () => {
        void (async () => {
          const local = header.type === 'file' ? archiveMemberPath(header.name) : null;
          if (!local) return;
          const raw = Buffer.concat(chunks);
          let doc: unknown;
          try {
            doc = JSON.parse(raw.toString('utf8'));
          } catch {
            result.rejected.push(header.name);
            return;
          }
          if (typeof (doc as { document?: { tracking?: { id?: unknown } } })?.document?.tracking?.id !== 'string') {
            result.rejected.push(header.name);
            return;
          }
          const file = join(vendorDir, local);
          await writeFileAtomic(file, raw);
          const when = archived ?? header.mtime ?? new Date(0);
          await utimes(file, when, when);
          result.documents++;
          bar.tick();
        })().then(() => next(), next);
      });
    });
    await pipeline(createReadStream(got.tmp), zstdDecompressor(), unpack, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted || err instanceof FetchError) throw err;
    throw new FetchError(`${vendor} archive ${url}: ${(err as Error).message}`);
  } finally {
    bar.stop();
    await rm(got.tmp, { force: true });
  }
  if (result.documents === 0) throw new FetchError(`${vendor} archive ${url}: no CSAF document (<year>/<file>.json) inside`);
  await writeJsonAtomic(join(vendorDir, MARKER), { archive: url, started: null, finished: ctx.now().toISOString(), documents: result.documents });
  ctx.log(`  csaf ${vendor}: ${formatCount(result.documents)} documents from ${name}`);
  return result;
}
