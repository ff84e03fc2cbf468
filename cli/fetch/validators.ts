/**
 * HTTP cache validators (ETag / Last-Modified) per downloaded file, kept in `<source>/_http.json`
 * (a `_` name: no reader mistakes it for data). With them an unchanged source costs one round
 * trip and a 304.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonAtomic } from './atomic.ts';
import { headerValue, type HttpResponse } from './http.ts';

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export function conditionalHeaders(v: Validators | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (v?.etag) h['if-none-match'] = v.etag;
  if (v?.lastModified) h['if-modified-since'] = v.lastModified;
  return h;
}

export function validatorsOf(res: Pick<HttpResponse, 'headers'>): Validators {
  const v: Validators = {};
  const etag = headerValue(res.headers, 'etag');
  const lastModified = headerValue(res.headers, 'last-modified');
  if (etag) v.etag = etag;
  if (lastModified) v.lastModified = lastModified;
  return v;
}

export class ValidatorStore {
  private constructor(
    private readonly file: string,
    private readonly entries: Record<string, Validators & { url?: string }>,
  ) {}

  static async load(sourceDir: string): Promise<ValidatorStore> {
    const file = join(sourceDir, '_http.json');
    let entries = {};
    try {
      entries = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      // Missing or unreadable: start without validators (costs one full download).
    }
    return new ValidatorStore(file, entries);
  }

  /** Validators for `key`, only if they were recorded for the same URL. */
  get(key: string, url: string): Validators | undefined {
    const e = this.entries[key];
    return e && e.url === url ? e : undefined;
  }

  async set(key: string, url: string, v: Validators): Promise<void> {
    this.entries[key] = { url, ...v };
    await writeJsonAtomic(this.file, this.entries);
  }
}
