/**
 * Where a CSAF document whose URL has no year folder is kept (Siemens:
 * `…/productcert/csaf/ssa-613077.json`). Other providers put each document under the year of
 * its initial release, which never changes, so a document has one path for life. Such a URL
 * gives no year, and the year of the latest revision (what a listing dates) moves: a revision
 * in a new year left two copies (`siemens/2026/x.json` and `siemens/2027/x.json`), both read by
 * the build. So the year is that of the document's own `tracking.initial_release_date` (until
 * the document is read: the ROLIE entry's `published`), found again by file name in any year
 * folder, and a copy in another year folder is removed once the new one is in place.
 */
import { readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';

const YEAR = /^\d{4}$/;

/** The year of `document.tracking.initial_release_date`, or null when the document has none. */
export function initialReleaseYear(doc: unknown): string | null {
  const date = (doc as { document?: { tracking?: { initial_release_date?: unknown } } })?.document?.tracking?.initial_release_date;
  if (typeof date !== 'string' || Number.isNaN(Date.parse(date))) return null;
  return new Date(date).toISOString().slice(0, 4);
}

/** The `<year>/<file>` copies kept in a vendor folder, by file name. */
export class YearlessCopies {
  private constructor(
    private readonly vendorDir: string,
    private readonly byName: Map<string, string[]>,
  ) {}

  static async load(vendorDir: string): Promise<YearlessCopies> {
    const byName = new Map<string, string[]>();
    for (const year of (await readdir(vendorDir).catch(() => [] as string[])).filter((n) => YEAR.test(n))) {
      for (const file of await readdir(join(vendorDir, year)).catch(() => [] as string[])) {
        if (file.startsWith('.')) continue;
        byName.set(file, [...(byName.get(file) ?? []), `${year}/${file}`]);
      }
    }
    return new YearlessCopies(vendorDir, byName);
  }

  /** Where `file` is kept (`<year>/<file>`); more than one path is a document kept twice. */
  copiesOf(file: string): string[] {
    return this.byName.get(file) ?? [];
  }

  /** `path` (`<year>/<file>`) now holds its file: every other copy of it goes. */
  async settle(path: string): Promise<void> {
    const file = basename(path);
    for (const other of this.copiesOf(file)) if (other !== path) await rm(join(this.vendorDir, other), { force: true });
    this.byName.set(file, [path]);
  }
}
