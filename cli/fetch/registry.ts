/** Every source fetcher, in fetch order, by the name used on the command line and in `_status/`. */
import type { RAW_SOURCES, RawSourceKey } from '../../lib/raw-layout.ts';
import type { SourceName } from './config.ts';
import { csafSource } from './sources/csaf.ts';
import { cvelistSource } from './sources/cvelist.ts';
import { ghsaSource } from './sources/ghsa.ts';
import { msrcSource } from './sources/msrc.ts';
import { nvdSource } from './sources/nvd.ts';
import {
  cweSource,
  epssSource,
  exploitdbSource,
  kevSource,
  metasploitSource,
  nucleiSource,
  pocInGithubSource,
} from './sources/single-file.ts';
import type { SourceFetcher } from './sources/types.ts';

export const FETCHERS: Record<SourceName, SourceFetcher> = {
  nvd: nvdSource,
  cvelist: cvelistSource,
  kev: kevSource,
  epss: epssSource,
  ghsa: ghsaSource,
  csaf: csafSource,
  msrc: msrcSource,
  exploitdb: exploitdbSource,
  metasploit: metasploitSource,
  nuclei: nucleiSource,
  'poc-in-github': pocInGithubSource,
  cwe: cweSource,
};

// The fetch names are exactly the raw folder names of lib/raw-layout.ts (checked by the compiler).
type RawFolder = (typeof RAW_SOURCES)[RawSourceKey];
const sameNames: [SourceName] extends [RawFolder] ? ([RawFolder] extends [SourceName] ? true : never) : never = true;
void sameNames;
