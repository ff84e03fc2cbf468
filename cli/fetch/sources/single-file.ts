/**
 * Sources published as one file that is simply re-downloaded when it changed (conditional GET):
 * KEV, EPSS, Exploit-DB, Metasploit, nuclei, PoC-in-GitHub, CWE. Each declares its file name
 * (lib/raw-layout.ts) and the check a download must pass before it replaces the file in place.
 */
import { join } from 'node:path';
import { formatCount } from '../../../lib/log.ts';
import { fetchFile } from '../download.ts';
import { FetchError } from '../errors.ts';
import type { FetchConfig } from '../config.ts';
import { ValidatorStore } from '../validators.ts';
import {
  verifyCsvFile,
  verifyEpssCsvGz,
  verifyJsonFile,
  verifyJsonLines,
  verifyZip,
  zipEntryNames,
  type Verified,
} from '../verify.ts';
import type { FetchContext, SourceFetcher, SourceOutcome } from './types.ts';

type SingleFileName = 'kev' | 'epss' | 'exploitdb' | 'metasploit' | 'nuclei' | 'poc-in-github' | 'cwe';

interface SingleFileSpec {
  name: SingleFileName;
  file: string;
  unit: string;
  verify: (tmp: string, what: string) => Promise<Verified>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function iso(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function singleFileSource(spec: SingleFileSpec): SourceFetcher {
  return {
    name: spec.name,
    async fetch(ctx: FetchContext): Promise<SourceOutcome> {
      const url = (ctx.config.sources[spec.name] as FetchConfig['sources'][SingleFileName]).url;
      const store = await ValidatorStore.load(ctx.dir);
      const got = await fetchFile(ctx.http, {
        url,
        dest: join(ctx.dir, spec.file),
        sourceDir: ctx.dir,
        verify: spec.verify,
        store,
        // --full: download again even if the server would answer 304.
        conditional: !ctx.full,
        signal: ctx.signal,
      });
      return {
        records: got.records,
        bytes: got.bytes,
        watermark: got.watermark,
        unchanged: !got.changed,
        detail: got.changed ? `${formatCount(got.records ?? 0)} ${spec.unit}` : 'not modified',
      };
    },
  };
}

export const kevSource = singleFileSource({
  name: 'kev',
  file: 'known_exploited_vulnerabilities.json',
  unit: 'KEV entries',
  verify: (tmp, what) =>
    verifyJsonFile(tmp, what, (v) => {
      if (!isObject(v) || !Array.isArray(v.vulnerabilities)) return 'not a KEV catalog (no vulnerabilities array)';
      if (typeof v.catalogVersion !== 'string') return 'not a KEV catalog (no catalogVersion)';
      const bad = v.vulnerabilities.findIndex((x) => !isObject(x) || typeof x.cveID !== 'string');
      if (bad >= 0) return `vulnerabilities[${bad}] has no cveID`;
      return { records: v.vulnerabilities.length, watermark: iso(v.dateReleased) };
    }),
});

export const epssSource = singleFileSource({
  name: 'epss',
  file: 'epss_scores-current.csv.gz',
  unit: 'scores',
  verify: async (tmp, what) => {
    const v = await verifyEpssCsvGz(tmp, what);
    return { ...v, watermark: iso(v.watermark) ?? v.watermark ?? null };
  },
});

export const exploitdbSource = singleFileSource({
  name: 'exploitdb',
  file: 'files_exploits.csv',
  unit: 'exploits',
  verify: (tmp, what) => verifyCsvFile(tmp, what, ['id', 'file', 'description', 'codes']),
});

export const metasploitSource = singleFileSource({
  name: 'metasploit',
  file: 'modules_metadata_base.json',
  unit: 'modules',
  verify: (tmp, what) =>
    verifyJsonFile(tmp, what, (v) => {
      if (!isObject(v)) return 'not a module map (expected one JSON object)';
      const entries = Object.entries(v);
      if (entries.length === 0) return 'no modules';
      // Named, so the log says which of ~6,000 modules to look at.
      const bad = entries.find(([, m]) => !isObject(m) || !Array.isArray(m.references));
      if (bad) return `module ${JSON.stringify(bad[0])} has no references array`;
      return { records: entries.length };
    }),
});

export const nucleiSource = singleFileSource({
  name: 'nuclei',
  file: 'cves.json',
  unit: 'templates',
  verify: (tmp, what) => verifyJsonLines(tmp, what, (v) => isObject(v) && typeof v.ID === 'string'),
});

export const pocInGithubSource = singleFileSource({
  name: 'poc-in-github',
  file: 'PoC-in-GitHub.zip',
  unit: 'CVE files',
  verify: (tmp, what) => verifyZip(tmp, what, (name) => /(^|\/)\d{4}\/CVE-\d{4}-\d{4,}\.json$/.test(name)),
});

export const cweSource = singleFileSource({
  name: 'cwe',
  file: 'cwec_latest.xml.zip',
  unit: 'XML catalog',
  verify: async (tmp, what) => {
    const names = await zipEntryNames(tmp, what);
    const xml = names.find((n) => /cwec_v[\d.]+\.xml$/i.test(n)) ?? names.find((n) => n.toLowerCase().endsWith('.xml'));
    if (!xml) throw new FetchError(`${what}: no .xml catalog inside the zip`);
    const version = /cwec_v([\d.]+)\.xml$/i.exec(xml)?.[1];
    return { records: 1, watermark: version ? `v${version}` : null };
  },
});
