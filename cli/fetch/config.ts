/**
 * Where each source is fetched from, and how. Every URL can be overridden in one JSON file
 * (`--config`, see config/sources.example.json): companies mirror these feeds internally.
 * The file is merged over the defaults below (objects key by key, arrays replaced whole);
 * keys starting with `_` are comments.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { withoutBom } from '../../lib/bom.ts';
import { CliError } from '../../lib/errors.ts';

/** An http(s) URL: what the fetchers can read (an ftp: or file: URL failed only at fetch time, after retries). */
const url = z
  .string()
  .url()
  .refine((text) => /^https?:\/\//i.test(text), 'must be an http:// or https:// URL');

const CsafProviderSchema = z.strictObject({
  /** Folder name under `csaf/` and the vendor slug the API shows. */
  vendor: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  /** The provider's `provider-metadata.json`. */
  url,
  /** Keep only distributions/feeds whose URL contains one of these (empty: all). */
  include: z.array(z.string()).default([]),
  /** Drop distributions/feeds whose URL contains one of these (e.g. per-CVE VEX trees). */
  exclude: z.array(z.string()).default([]),
});

export const FetchConfigSchema = z.strictObject({
  http: z.strictObject({
    userAgent: z.string().optional(),
    timeoutSeconds: z.number().positive(),
    retries: z.number().int().min(0),
    backoffSeconds: z.number().min(0),
    maxRetryWaitSeconds: z.number().positive(),
    /** Prefix rewrites applied to every URL, including those found in listings (asset links, CSAF documents). */
    urlRewrites: z.array(z.strictObject({ from: z.string(), to: z.string() })),
  }),
  sources: z.strictObject({
    nvd: z.strictObject({
      url,
      pageSize: z.number().int().min(1).max(2000),
      /** Incremental windows (NVD allows at most 120 days per lastMod range). */
      windowDays: z.number().positive().max(120),
      /** Each window starts this much before the watermark, so nothing slips between runs. */
      overlapMinutes: z.number().min(0),
      /** Requests per rate window; default 5 without NVD_API_KEY, 50 with it. */
      requestsPerWindow: z.number().int().positive().optional(),
      rateWindowSeconds: z.number().positive(),
    }),
    cvelist: z.strictObject({
      /** GitHub releases API of CVEProject/cvelistV5 (or a mirror serving the same JSON). */
      releasesUrl: url,
      /** Release pages of 100 to read (hourly releases: ~25 a day). */
      releasePages: z.number().int().min(1),
      /** Download a fresh baseline once the one in place is older than this (reconciles missed deltas). */
      baselineMaxAgeDays: z.number().min(0),
    }),
    kev: z.strictObject({ url }),
    epss: z.strictObject({ url }),
    ghsa: z.strictObject({
      /** OSV bulk export root: `<base>/<ecosystem>/all.zip`, `modified_id.csv`, `<id>.json`. */
      baseUrl: url,
      ecosystems: z.array(z.string().min(1)),
      /** Incremental updates fetch only ids with these prefixes (all.zip is kept as published). */
      idPrefixes: z.array(z.string()),
      /** Re-download all.zip after this many days (and drop the per-record updates). */
      fullRefreshDays: z.number().min(0),
      /** More changed records than this in one run: download all.zip instead. */
      maxIncremental: z.number().int().min(0),
      /**
       * The first incremental run after an all.zip starts this long before its Last-Modified;
       * later ones also take records listed late that were modified this long before the watermark.
       */
      overlapHours: z.number().min(0),
      concurrency: z.number().int().min(1),
    }),
    csaf: z.strictObject({
      providers: z.array(CsafProviderSchema),
      concurrency: z.number().int().min(1),
    }),
    msrc: z.strictObject({
      /** MSRC CVRF v3 `updates` index; documents come from each entry's `CvrfUrl`. */
      updatesUrl: url,
      /** Skip monthly documents released before this year (null: all). */
      sinceYear: z.number().int().nullable(),
    }),
    exploitdb: z.strictObject({ url }),
    metasploit: z.strictObject({ url }),
    nuclei: z.strictObject({ url }),
    'poc-in-github': z.strictObject({ url }),
    cwe: z.strictObject({ url }),
  }),
});

export type FetchConfig = z.infer<typeof FetchConfigSchema>;
export type CsafProvider = z.infer<typeof CsafProviderSchema>;
export type SourceName = keyof FetchConfig['sources'];

export const DEFAULT_CONFIG: FetchConfig = {
  // A host that accepts the connection and never answers fails its source within about two
  // minutes: 4 attempts × 25 s + backoffs of at most 2.5 + 5 + 10 s = 117.5 s (deadHostSeconds).
  http: {
    timeoutSeconds: 25,
    retries: 3,
    backoffSeconds: 2,
    maxRetryWaitSeconds: 300,
    urlRewrites: [],
  },
  sources: {
    nvd: {
      url: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
      pageSize: 2000,
      windowDays: 120,
      overlapMinutes: 15,
      rateWindowSeconds: 30,
    },
    cvelist: {
      releasesUrl: 'https://api.github.com/repos/CVEProject/cvelistV5/releases',
      releasePages: 3,
      baselineMaxAgeDays: 7,
    },
    kev: { url: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json' },
    epss: { url: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz' },
    ghsa: {
      baseUrl: 'https://osv-vulnerabilities.storage.googleapis.com',
      ecosystems: ['npm', 'PyPI', 'Maven', 'Go', 'NuGet', 'RubyGems', 'crates.io', 'Packagist', 'Pub', 'Hex', 'SwiftURL', 'GitHub Actions'],
      idPrefixes: ['GHSA-'],
      fullRefreshDays: 7,
      maxIncremental: 5000,
      overlapHours: 24,
      concurrency: 4,
    },
    csaf: {
      providers: [
        { vendor: 'redhat', url: 'https://security.access.redhat.com/data/csaf/v2/provider-metadata.json', include: ['/advisories'], exclude: [] },
        { vendor: 'cisco', url: 'https://www.cisco.com/.well-known/csaf/provider-metadata.json', include: [], exclude: [] },
        { vendor: 'siemens', url: 'https://cert-portal.siemens.com/productcert/csaf/provider-metadata.json', include: [], exclude: [] },
        { vendor: 'suse', url: 'https://ftp.suse.com/pub/projects/security/csaf/provider-metadata.json', include: [], exclude: ['csaf-vex'] },
        { vendor: 'microsoft', url: 'https://msrc.microsoft.com/csaf/provider-metadata.json', include: [], exclude: [] },
        { vendor: 'cisa', url: 'https://www.cisa.gov/sites/default/files/csaf/provider-metadata.json', include: [], exclude: [] },
      ],
      concurrency: 6,
    },
    msrc: { updatesUrl: 'https://api.msrc.microsoft.com/cvrf/v3.0/updates', sinceYear: null },
    exploitdb: { url: 'https://gitlab.com/exploit-database/exploitdb/-/raw/main/files_exploits.csv' },
    metasploit: { url: 'https://raw.githubusercontent.com/rapid7/metasploit-framework/master/db/modules_metadata_base.json' },
    nuclei: { url: 'https://raw.githubusercontent.com/projectdiscovery/nuclei-templates/main/cves.json' },
    'poc-in-github': { url: 'https://github.com/nomi-sec/PoC-in-GitHub/archive/refs/heads/master.zip' },
    cwe: { url: 'https://cwe.mitre.org/data/xml/cwec_latest.xml.zip' },
  },
};

export const SOURCE_NAMES = Object.keys(DEFAULT_CONFIG.sources) as SourceName[];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops `_comment`-style keys at any depth (arrays of objects included). */
function stripComments(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripComments);
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('_')).map(([k, x]) => [k, stripComments(x)]));
}

/** Merges `override` over `base`: objects key by key, everything else replaced; `_` keys dropped. */
export function mergeConfig(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : stripComments(override);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    if (k.startsWith('_')) continue;
    out[k] = mergeConfig(base[k], v);
  }
  return out;
}

/** The defaults, or the defaults with `file` merged over them (validated, with a clear error). */
export async function loadFetchConfig(file?: string, extra?: unknown): Promise<FetchConfig> {
  let merged: unknown = DEFAULT_CONFIG;
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read config ${file}: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(withoutBom(text));
    } catch (err) {
      throw new CliError(`config ${file} is not valid JSON: ${(err as Error).message}`);
    }
    merged = mergeConfig(merged, parsed);
  }
  if (extra !== undefined) merged = mergeConfig(merged, extra);
  const result = FetchConfigSchema.safeParse(merged);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'the top level'}: ${i.message}`).join('; ');
    throw new CliError(`config ${file ?? '(defaults)'}: ${issues}`);
  }
  return result.data;
}
