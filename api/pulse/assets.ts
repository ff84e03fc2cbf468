/**
 * The web area's own assets, read once at start and served by the server itself (no CDN, works
 * offline): the stylesheet and the small enhancement script. Their URLs carry a hash of their
 * bytes, so pages can let browsers cache them for a year; a new version is a new URL.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash } from 'node:crypto';

export interface Asset {
  /** Path under /pulse/assets/, with the content hash in the query string. */
  url: string;
  body: Buffer;
  contentType: string;
  etag: string;
}

const DIR = join(import.meta.dirname, 'assets');

function load(file: string, contentType: string): Asset {
  const body = readFileSync(join(DIR, file));
  const digest = hash('sha1', body, 'base64url').slice(0, 12);
  return { url: `/pulse/assets/${file}?v=${digest}`, body, contentType, etag: `"${digest}"` };
}

export const ASSETS: Readonly<Record<string, Asset>> = {
  'pulse.css': load('pulse.css', 'text/css; charset=utf-8'),
  'pulse.js': load('pulse.js', 'text/javascript; charset=utf-8'),
};

/** Changes whenever any asset does: part of every page's ETag (pages link the asset URLs). */
export const ASSETS_VERSION = hash('sha1', Object.values(ASSETS).map((a) => a.etag).join(','), 'base64url').slice(0, 12);
