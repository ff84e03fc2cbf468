/** Every raw-source parser, in the order the build stages them. */
import { csafParser } from './csaf.ts';
import { cve5Parser } from './cve5.ts';
import { cweParser } from './cwe.ts';
import { epssParser } from './epss.ts';
import { exploitdbParser } from './exploitdb.ts';
import { kevParser } from './kev.ts';
import { metasploitParser } from './metasploit.ts';
import { msrcParser } from './msrc.ts';
import { nucleiParser } from './nuclei.ts';
import { nvdParser } from './nvd.ts';
import { osvParser } from './osv.ts';
import { pocInGithubParser } from './poc-in-github.ts';
import type { SourceParser } from './source.ts';

export const PARSERS: SourceParser[] = [
  nvdParser, cve5Parser, kevParser, epssParser, osvParser, csafParser, msrcParser,
  exploitdbParser, metasploitParser, nucleiParser, pocInGithubParser, cweParser,
];
