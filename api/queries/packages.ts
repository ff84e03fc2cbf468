/**
 * Package questions on a served snapshot: the package index (lib/packages/index.ts) built once
 * per snapshot through the snapshot's reader (its connection pool), then every answer computed
 * in memory by lib/packages/check.ts — the code `vulnintel scan` runs too.
 *
 * The index is built the first time a package question arrives (and started in the background
 * when the snapshot is swapped in, see api/app.ts), never before the snapshot is served: the
 * replica is ready as soon as the snapshot is open.
 */
import { readServingPackages } from '../../lib/serving-layout.ts';
import { checkVersion, listAdvisories, type ListAnswer, type VersionAnswer } from '../../lib/packages/check.ts';
import { PackageIndex } from '../../lib/packages/index.ts';
import { parsePurl, PurlError, type PurlPackage } from '../../lib/packages/purl.ts';
import { askedRelease } from '../../lib/packages/releases.ts';
import { canonicalEcosystem, SUPPORTED_ECOSYSTEMS } from '../../lib/versions/ecosystems.ts';
import { VersionSyntaxError } from '../../lib/versions/scheme.ts';
import { requireTables, selectRows, type SnapshotReader } from './support.ts';

export interface MemoSnapshot extends SnapshotReader {
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** The serving files' folder: the index is read from its packages.ndjson when there. */
  servingDir?: string;
}

/** Async: a table that could not be loaded is a rejection (503 for a request), never a throw out of the swap listener (api/app.ts). */
export async function packageIndexOf(snapshot: MemoSnapshot): Promise<PackageIndex> {
  requireTables(snapshot, 'affected_packages', 'cves');
  return snapshot.memo('package-index', async () => {
    const stored = snapshot.servingDir === undefined ? null : await readServingPackages(snapshot.servingDir);
    if (stored !== null) return PackageIndex.fromLines(stored);
    return PackageIndex.load(async (sql) => (await selectRows<{ row_json: string }>(snapshot, sql)).map((r) => r.row_json), {
      advisories: !snapshot.unreadableTables.has('advisory_packages'),
    });
  });
}

export type PackageAnswer = VersionAnswer | ListAnswer;

/** A question the API refuses, naming the parameter (the route turns it into a 400). */
export class PackageQuestionError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'PackageQuestionError';
  }
}

/** `pypi` → `PyPI`; an unknown ecosystem is refused with the supported list. */
export function askedEcosystem(raw: string, parameter = 'ecosystem'): string {
  const canonical = canonicalEcosystem(raw.trim());
  if (canonical === null) {
    throw new PackageQuestionError(parameter, `${parameter}: "${raw}" is not a supported ecosystem. Supported (as OSV spells them, any case, distributions optionally with a release such as Debian:12): ${SUPPORTED_ECOSYSTEMS.join(', ')}`, {
      supported: SUPPORTED_ECOSYSTEMS,
    });
  }
  // The release as OSV spells it (`Alpine:3.20` is `Alpine:v3.20`): another spelling names no
  // advisory, and the package was answered "not affected".
  return askedRelease(canonical);
}

/** Answers one package; an unparseable version becomes a PackageQuestionError naming `parameter`. */
export function answerPackage(index: PackageIndex, ecosystem: string, name: string, version: string | null, parameter = 'version'): PackageAnswer {
  if (name.trim() === '') throw new PackageQuestionError('name', 'name: empty');
  if (version === null || version.trim() === '') return listAdvisories(index, { ecosystem, name, version: null });
  try {
    return checkVersion(index, { ecosystem, name, version: version.trim() });
  } catch (err) {
    if (err instanceof VersionSyntaxError) throw new PackageQuestionError(parameter, `${parameter}: ${err.message} for ${ecosystem}; nothing was judged`);
    throw err;
  }
}

export function readPurl(raw: string, parameter = 'purl'): PurlPackage {
  try {
    return parsePurl(raw);
  } catch (err) {
    if (err instanceof PurlError) throw new PackageQuestionError(parameter, `${parameter}: ${err.message}`, { supported: SUPPORTED_ECOSYSTEMS });
    throw err;
  }
}

/** The purl's package, answered; the answer carries the purl. */
export function answerPurl(index: PackageIndex, raw: string, parameter = 'purl'): PackageAnswer & { purl: string } {
  const p = readPurl(raw, parameter);
  return { purl: p.purl, ...answerPackage(index, p.ecosystem, p.name, p.version, parameter) };
}

export const MAX_BATCH = 100;

/**
 * `purls=` of the batch: purls separated by commas, where a separator is a comma followed by
 * `pkg:` (so a comma inside a purl — e.g. a `checksums` qualifier, or `%2C` decoded — stays
 * in it). Blank entries are ignored; duplicates are answered once, where they first appear.
 */
export function splitPurls(raw: string): string[] {
  return [...new Set(raw.split(/,(?=\s*pkg:)/i).map((s) => s.trim()).filter((s) => s !== ''))];
}

export type BatchItem = (PackageAnswer & { purl: string }) | { purl: string; error: { code: 'INVALID_PARAMETER'; message: string } };

/** Each purl answered in the order asked; a purl that cannot be answered carries its error instead. */
export function answerBatch(index: PackageIndex, purls: string[]): BatchItem[] {
  return purls.map((purl) => {
    try {
      return answerPurl(index, purl, 'purls');
    } catch (err) {
      if (err instanceof PackageQuestionError) return { purl, error: { code: 'INVALID_PARAMETER' as const, message: err.message } };
      throw err;
    }
  });
}
