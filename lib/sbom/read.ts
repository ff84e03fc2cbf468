/**
 * SBOM files → the components to check: CycloneDX JSON 1.2–1.7 (`components[]`, nested
 * components included, `purl` per component) and SPDX JSON 2.2/2.3 (`packages[]`, the purl
 * from `externalRefs` of category PACKAGE-MANAGER and type purl). Every component is kept,
 * with or without a purl, so the scan can list what it could not judge. A file that is not
 * one of these formats is refused with a message naming the file and what is wrong.
 */
import { constants } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { withoutBom } from '../bom.ts';
import type { SourcePackage } from '../packages/purl.ts';

export interface SbomComponent {
  /** `bom-ref` (CycloneDX) or `SPDXID` (SPDX); else the position in the file. */
  ref: string;
  name: string;
  version: string | null;
  purl: string | null;
  /** Why `purl` is null when the file has one of another type (`"purl": 5`): the scan's reason then. */
  purlProblem?: string;
  /** The source package the SBOM records for a distribution binary (see trivySource). */
  source?: SourcePackage;
}

export interface Sbom {
  format: 'CycloneDX' | 'SPDX';
  specVersion: string;
  components: SbomComponent[];
}

export class SbomFormatError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'SbomFormatError';
  }
}

// Every CycloneDX version with a JSON format (1.0 and 1.1 were XML only): `components`,
// `bom-ref`, `purl` and nested components are the same from 1.2 on, and older generators
// (cyclonedx-npm before 2022, many Maven and Gradle builds) still write 1.2 and 1.3.
const CYCLONEDX_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6', '1.7'];
const SPDX_VERSIONS = ['SPDX-2.2', 'SPDX-2.3'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * The purl of a component, and when the file holds something else there, what: it was read as
 * no purl, and the scan told the user "no purl" of a component whose purl was merely mistyped.
 */
function purlOf(v: unknown, at: string): Pick<SbomComponent, 'purl' | 'purlProblem'> {
  const purl = text(v);
  if (purl !== null || v === undefined || v === null || v === '') return { purl };
  const type = Array.isArray(v) ? 'array' : typeof v;
  const kind = type === 'string' ? 'blank' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
  return { purl: null, purlProblem: `${at} is ${kind}, not a purl string` };
}

/**
 * The source package Trivy records in a CycloneDX component's properties
 * (`aquasecurity:trivy:SrcName`, with `SrcEpoch`, `SrcVersion`, `SrcRelease`): Trivy writes
 * no `upstream` qualifier on its deb and apk purls (`pkg:deb/debian/libssl3@…`), and
 * Debian, Ubuntu and Alpine advisories name the source package (openssl), so the binary's
 * purl alone found none of them. The version is the source's as Trivy spells it:
 * `epoch:version-release`, the epoch when not 0, the release when given.
 */
function trivySource(properties: unknown): SourcePackage | undefined {
  if (!Array.isArray(properties)) return undefined;
  const value = (key: string): string | null => {
    const p = properties.find((e): e is Record<string, unknown> => isObject(e) && e.name === `aquasecurity:trivy:${key}`);
    return p ? text(p.value) : null;
  };
  const name = value('SrcName');
  if (name === null) return undefined;
  const version = value('SrcVersion');
  if (version === null) return { name, version: null };
  const epoch = value('SrcEpoch');
  const release = value('SrcRelease');
  return { name, version: `${epoch !== null && epoch !== '0' ? `${epoch}:` : ''}${version}${release !== null ? `-${release}` : ''}` };
}

/**
 * The source package Trivy records in an SPDX package's `sourceInfo`
 * (`built package from: openssl 3.0.11-1~deb12u1`, the version as in trivySource).
 */
function trivySpdxSource(sourceInfo: unknown): SourcePackage | undefined {
  const m = /^built package from: (\S+)(?: (\S+))?$/.exec(text(sourceInfo) ?? '');
  return m ? { name: m[1]!, version: m[2] ?? null } : undefined;
}

function cycloneDx(file: string, doc: Record<string, unknown>): Sbom {
  const spec = String(doc.specVersion ?? '');
  if (!CYCLONEDX_VERSIONS.includes(spec)) throw new SbomFormatError(file, `CycloneDX specVersion "${spec}" is not supported (supported: ${CYCLONEDX_VERSIONS.join(', ')})`);
  if (doc.components !== undefined && !Array.isArray(doc.components)) throw new SbomFormatError(file, '"components" is not an array');
  const components: SbomComponent[] = [];
  // Depth first, each component before its own (the file's order), with a stack of lists
  // rather than recursion: a crafted file nesting components 20,000 deep overflowed the call
  // stack, a crash with a stack trace where the user should read what is wrong with the file.
  const pending: Array<{ list: unknown[]; where: string; next: number }> = [{ list: (doc.components as unknown[] | undefined) ?? [], where: 'components', next: 0 }];
  while (pending.length > 0) {
    const top = pending.at(-1)!;
    if (top.next >= top.list.length) {
      pending.pop();
      continue;
    }
    const i = top.next++;
    const c = top.list[i];
    const at = `${top.where}[${i}]`;
    if (!isObject(c)) throw new SbomFormatError(file, `${at} is not an object`);
    const name = text(c.name);
    if (name === null) throw new SbomFormatError(file, `${at} has no "name"`);
    const source = trivySource(c.properties);
    components.push({ ref: text(c['bom-ref']) ?? at, name, version: text(c.version), ...purlOf(c.purl, `${at}.purl`), ...(source ? { source } : {}) });
    if (c.components !== undefined) {
      if (!Array.isArray(c.components)) throw new SbomFormatError(file, `${at}.components is not an array`);
      pending.push({ list: c.components, where: `${at}.components`, next: 0 });
    }
  }
  return { format: 'CycloneDX', specVersion: spec, components };
}

function spdx(file: string, doc: Record<string, unknown>): Sbom {
  const spec = String(doc.spdxVersion);
  if (!SPDX_VERSIONS.includes(spec)) throw new SbomFormatError(file, `spdxVersion "${spec}" is not supported (supported: ${SPDX_VERSIONS.join(', ')})`);
  if (doc.packages !== undefined && !Array.isArray(doc.packages)) throw new SbomFormatError(file, '"packages" is not an array');
  const components = ((doc.packages as unknown[] | undefined) ?? []).map((p, i): SbomComponent => {
    const at = `packages[${i}]`;
    if (!isObject(p)) throw new SbomFormatError(file, `${at} is not an object`);
    const name = text(p.name);
    if (name === null) throw new SbomFormatError(file, `${at} has no "name"`);
    if (p.externalRefs !== undefined && !Array.isArray(p.externalRefs)) throw new SbomFormatError(file, `${at}.externalRefs is not an array`);
    const refs = (p.externalRefs as unknown[] | undefined) ?? [];
    const found = refs.findIndex(
      (r) => isObject(r) && String(r.referenceCategory).replace('_', '-').toUpperCase() === 'PACKAGE-MANAGER' && r.referenceType === 'purl',
    );
    const purl = found === -1 ? { purl: null } : purlOf((refs[found] as Record<string, unknown>).referenceLocator, `${at}.externalRefs[${found}].referenceLocator`);
    const source = trivySpdxSource(p.sourceInfo);
    return { ref: text(p.SPDXID) ?? at, name, version: text(p.versionInfo), ...purl, ...(source ? { source } : {}) };
  });
  return { format: 'SPDX', specVersion: spec, components };
}

/**
 * What a file that is no JSON is instead, when it is another SBOM format or nothing: the JSON
 * parser's "Unexpected token '<'" told the holder of a CycloneDX XML file that it was broken
 * JSON, not that XML is not read. Null for anything else (the parser's message then).
 */
function notJson(text: string): string | null {
  const start = text.trimStart();
  if (start === '') return 'is empty (expected a CycloneDX or SPDX JSON SBOM)';
  if (start.startsWith('<')) return 'is XML (a CycloneDX XML or SPDX RDF/XML SBOM?); only JSON SBOMs are read: write it as CycloneDX or SPDX JSON';
  if (/^SPDXVersion:/m.test(start.slice(0, 4096))) return 'is an SPDX tag-value document; only SPDX JSON is read: write it as SPDX JSON';
  return null;
}

/** An SPDX 3 document: JSON-LD with SPDX 3's context, no `spdxVersion`. */
function isSpdx3(doc: Record<string, unknown>): boolean {
  const context = Array.isArray(doc['@context']) ? doc['@context'] : [doc['@context']];
  return context.some((c) => typeof c === 'string' && /^https?:\/\/spdx\.org\/rdf\/3\./.test(c));
}

export function parseSbom(file: string, json: string): Sbom {
  const text = withoutBom(json);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SbomFormatError(file, notJson(text) ?? `not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) throw new SbomFormatError(file, 'the SBOM must be a JSON object');
  if (isSpdx3(doc)) throw new SbomFormatError(file, `is an SPDX 3 (JSON-LD) document; SPDX ${SPDX_VERSIONS.map((v) => v.slice(5)).join(' and ')} JSON are read`);
  if (doc.bomFormat === 'CycloneDX') return cycloneDx(file, doc);
  if (typeof doc.spdxVersion === 'string') return spdx(file, doc);
  throw new SbomFormatError(file, 'neither a CycloneDX JSON SBOM ("bomFormat": "CycloneDX") nor an SPDX JSON SBOM ("spdxVersion")');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A file's bytes as UTF-8 text (RFC 8259 §8.1: JSON exchanged between systems is UTF-8), or an
 * SbomFormatError saying what it is instead. Read leniently, a Latin-1 or Windows-1252 file had
 * each byte past ASCII replaced by U+FFFD: its names and purls were changed without a word, and
 * a component whose purl no longer named its package was reported free of known
 * vulnerabilities. A UTF-16 file (what Windows PowerShell 5 redirects write) was refused as
 * JSON with an "unexpected token" quoting the replacement characters.
 */
export function sbomText(file: string, bytes: Uint8Array): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new SbomFormatError(file, 'is UTF-16 text (it starts with a UTF-16 byte order mark); JSON SBOMs are read as UTF-8: save it as UTF-8');
  }
  try {
    return UTF8.decode(bytes);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new SbomFormatError(file, 'is not UTF-8 text (it holds bytes that are no UTF-8 character, e.g. Latin-1 or Windows-1252 text); JSON SBOMs are read as UTF-8: save it as UTF-8');
    }
    // Text longer than a string can be (about 512 MiB): ERR_STRING_TOO_LONG, as reading it as text said.
    throw new SbomFormatError(file, `cannot be read (${code ?? (err as Error).message})`);
  }
}

/**
 * A gzip-compressed file's bytes decompressed (`sbom.cdx.json.gz`, as CI jobs and artifact
 * stores keep SBOMs), any other file's as they are. Read as text, the compressed bytes were
 * refused as "not UTF-8 text, e.g. Latin-1", which they are not. At most what one string can
 * hold comes out (the text must become one), so a small crafted file cannot fill the memory.
 */
async function decompressed(file: string, bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return await promisify(gunzip)(bytes, { maxOutputLength: constants.MAX_STRING_LENGTH });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new SbomFormatError(file, 'is gzip-compressed and decompresses to more text than can be read (ERR_STRING_TOO_LONG)');
    throw new SbomFormatError(file, `is gzip-compressed but cannot be decompressed (${(err as Error).message})`);
  }
}

/** The file name that means standard input, as for most tools (`syft … -o cyclonedx-json | vulnintel scan -`). */
export const STDIN = '-';

/** How messages name the SBOM: its path, or `standard input`. */
export function sbomName(file: string): string {
  return file === STDIN ? 'standard input' : file;
}

async function readAll(stream: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  return Buffer.concat(chunks);
}

/** `file`, or `stdin` when it is `-` (it was opened as a file named `-`: ENOENT). */
export async function readSbom(file: string, stdin: AsyncIterable<Uint8Array | string> = process.stdin): Promise<Sbom> {
  const name = sbomName(file);
  let bytes: Uint8Array;
  try {
    bytes = file === STDIN ? await readAll(stdin) : await readFile(file);
  } catch (err) {
    throw new SbomFormatError(name, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseSbom(name, sbomText(name, await decompressed(name, bytes)));
}
