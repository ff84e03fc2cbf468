/**
 * `vulnintel scan`: CycloneDX and SPDX SBOMs against the sample snapshot — findings by service
 * risk with KEV and EPSS, components that cannot be judged listed, SARIF 2.1.0 structure,
 * `--fail-on` exit codes, malformed files named with what is wrong.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { openSnapshotViews } from '../../cli/commands/sql.ts';
import { renderSarif } from '../../cli/scan/render.ts';
import { componentPurl, failsOn, scanComponents, type ScanResult } from '../../cli/scan/scan.ts';
import { listAdvisories } from '../../lib/packages/check.ts';
import { PackageIndex } from '../../lib/packages/index.ts';
import { SERVING_PACKAGES, servingDir } from '../../lib/serving-layout.ts';
import { readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { parseSbom, readSbom, SbomFormatError, sbomText } from '../../lib/sbom/read.ts';
import { cli } from '../helpers/cli.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

const CDX = resolve(import.meta.dirname, '..', 'fixtures', 'sbom', 'sample.cdx.json');
const SPDX = resolve(import.meta.dirname, '..', 'fixtures', 'sbom', 'sample.spdx.json');

let dataDir: string;
let index: PackageIndex;
beforeAll(async () => {
  dataDir = (await buildCorpus()).dataDir;
  const { instance, connection } = await openSnapshotViews(dataDir);
  index = await PackageIndex.load(async (sql) => (await connection.runAndReadAll(sql)).getColumns()[0] as string[]);
  connection.closeSync();
  instance.closeSync();
});

describe('reading SBOMs', () => {
  it('reads CycloneDX components, nested ones included, and SPDX purls from externalRefs', async () => {
    const cdx = await readSbom(CDX);
    expect(cdx).toMatchObject({ format: 'CycloneDX', specVersion: '1.5' });
    expect(cdx.components).toHaveLength(16);
    expect(cdx.components.find((c) => c.name === 'langchain-core')?.purl).toBe('pkg:pypi/langchain-core@0.3.80');
    const spdx = await readSbom(SPDX);
    expect(spdx).toMatchObject({ format: 'SPDX', specVersion: 'SPDX-2.3' });
    expect(spdx.components.map((c) => c.purl)).toContain('pkg:pypi/mlflow@2.18.0');
    expect(spdx.components.find((c) => c.name === 'internal-tool')?.purl).toBeNull();
  });
  it('reads CycloneDX 1.7 (October 2025): its components as in 1.6, its new members (citations) ignored', () => {
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.7',
      serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
      version: 1,
      components: [{ type: 'library', 'bom-ref': 'lodash', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' }],
      citations: [{ pointers: ['/components/0'], timestamp: '2025-10-30T00:00:00Z', attributedTo: 'lodash' }],
    };
    const sbom = parseSbom('new.cdx.json', JSON.stringify(doc));
    expect(sbom).toMatchObject({ format: 'CycloneDX', specVersion: '1.7' });
    expect(sbom.components.map((c) => [c.ref, c.purl])).toEqual([['lodash', 'pkg:npm/lodash@4.17.20']]);
  });

  it('reads CycloneDX 1.2 and 1.3 JSON, which older generators still write (components as in 1.4)', () => {
    for (const specVersion of ['1.2', '1.3']) {
      const doc = {
        bomFormat: 'CycloneDX',
        specVersion,
        serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
        version: 1,
        metadata: { timestamp: '2021-03-01T10:00:00Z', tools: [{ vendor: 'CycloneDX', name: 'Node.js module', version: '2.0.0' }] },
        components: [
          { type: 'library', 'bom-ref': 'pkg:npm/express@4.17.1', name: 'express', version: '4.17.1', purl: 'pkg:npm/express@4.17.1',
            components: [{ type: 'library', 'bom-ref': 'pkg:npm/body-parser@1.19.0', name: 'body-parser', version: '1.19.0', purl: 'pkg:npm/body-parser@1.19.0' }] },
        ],
      };
      const sbom = parseSbom('old.cdx.json', JSON.stringify(doc));
      expect(sbom).toMatchObject({ format: 'CycloneDX', specVersion });
      expect(sbom.components.map((c) => c.purl)).toEqual(['pkg:npm/express@4.17.1', 'pkg:npm/body-parser@1.19.0']);
    }
  });

  it('names the file and what is wrong', () => {
    expect(() => parseSbom('a.json', '{oops')).toThrow(/^a\.json: not valid JSON/);
    expect(() => parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.1"}')).toThrow('a.json: CycloneDX specVersion "1.1" is not supported (supported: 1.2, 1.3, 1.4, 1.5, 1.6, 1.7)');
    expect(() => parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"version":"1"}]}')).toThrow('a.json: components[0] has no "name"');
    expect(() => parseSbom('a.json', '{"spdxVersion":"SPDX-2.1"}')).toThrow(SbomFormatError);
    expect(() => parseSbom('a.json', '{"hello":1}')).toThrow(/neither a CycloneDX JSON SBOM/);
  });

  it('says what a file is when it is another SBOM format than JSON 2.x / CycloneDX, or empty, rather than quoting a JSON parser', () => {
    const cdxXml = '<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1"><components/></bom>';
    expect(() => parseSbom('bom.xml', cdxXml)).toThrow('bom.xml: is XML (a CycloneDX XML or SPDX RDF/XML SBOM?); only JSON SBOMs are read: write it as CycloneDX or SPDX JSON');
    expect(() => parseSbom('bom.xml', `\uFEFF  ${cdxXml.slice(cdxXml.indexOf('<bom'))}`)).toThrow('bom.xml: is XML');
    const tagValue = 'SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\nSPDXID: SPDXRef-DOCUMENT\n';
    expect(() => parseSbom('sbom.spdx', tagValue)).toThrow('sbom.spdx: is an SPDX tag-value document; only SPDX JSON is read: write it as SPDX JSON');
    expect(() => parseSbom('sbom.spdx', `## Document Information\n\n${tagValue}`)).toThrow('sbom.spdx: is an SPDX tag-value document');
    const spdx3 = JSON.stringify({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [{ type: 'SpdxDocument', spdxId: 'urn:x' }] });
    expect(() => parseSbom('sbom.spdx3.json', spdx3)).toThrow('sbom.spdx3.json: is an SPDX 3 (JSON-LD) document; SPDX 2.2 and 2.3 JSON are read');
    for (const empty of ['', '  \n', '\uFEFF']) expect(() => parseSbom('empty.json', empty)).toThrow(/^empty\.json: is empty \(expected a CycloneDX or SPDX JSON SBOM\)$/);
    // A JSON file that merely starts with spaces is read as before.
    expect(parseSbom('a.json', ' \n{"bomFormat":"CycloneDX","specVersion":"1.6"}').components).toEqual([]);
  });

  it('reads components nested deeper than the call stack goes, in the file order', () => {
    // 20,000 levels: a RangeError (Maximum call stack size exceeded) with a stack before.
    const depth = 20_000;
    const leaf = '{"name":"leaf","purl":"pkg:npm/lodash@4.17.20"}';
    const doc = `{"bomFormat":"CycloneDX","specVersion":"1.6","components":[${'{"name":"n","components":['.repeat(depth)}${leaf}${']}'.repeat(depth)},{"name":"last"}]}`;
    const sbom = parseSbom('deep.json', doc);
    expect(sbom.components).toHaveLength(depth + 2);
    expect(sbom.components.at(-2)).toMatchObject({ name: 'leaf', purl: 'pkg:npm/lodash@4.17.20' });
    expect(sbom.components.at(-1)).toMatchObject({ name: 'last', ref: 'components[1]' });
    const nested = parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"name":"a","components":[{"name":"b"},{"name":"c","components":[{"name":"d"}]}]},{"name":"e"}]}');
    expect(nested.components.map((c) => `${c.name} ${c.ref}`)).toEqual(['a components[0]', 'b components[0].components[0]', 'c components[0].components[1]', 'd components[0].components[1].components[0]', 'e components[1]']);
    expect(() => parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"name":"a","components":[{"name":"b","components":{}}]}]}')).toThrow('a.json: components[0].components[0].components is not an array');
  });

  it('names a purl of another type than a string, rather than calling it missing', () => {
    const cdx = parseSbom('a.json', JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [
      { name: 'n', purl: 5 }, { name: 'o', purl: { type: 'npm' } }, { name: 'l', purl: ['pkg:npm/lodash@4.17.20'] }, { name: 'b', purl: '  ' }, { name: 'none' },
    ] }));
    // Each was judged "no purl".
    expect(cdx.components.map((c) => componentPurl(c))).toEqual([
      'components[0].purl is a number, not a purl string',
      'components[1].purl is an object, not a purl string',
      'components[2].purl is an array, not a purl string',
      'components[3].purl is blank, not a purl string',
      'no purl',
    ]);
    const spdx = parseSbom('b.json', JSON.stringify({ spdxVersion: 'SPDX-2.3', packages: [
      { name: 'p', externalRefs: [{ referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:x:y:1' }, { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 7 }] },
    ] }));
    expect(componentPurl(spdx.components[0]!)).toBe('packages[0].externalRefs[1].referenceLocator is a number, not a purl string');
  });

  it('reads an SBOM written with a UTF-8 byte order mark (Windows tools write one)', () => {
    const doc = '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"name":"lodash","version":"4.17.20","purl":"pkg:npm/lodash@4.17.20"}]}';
    expect(parseSbom('a.json', `\uFEFF${doc}`)).toEqual(parseSbom('a.json', doc));
    expect(parseSbom('a.json', `\uFEFF${doc}`).components).toHaveLength(1);
  });

  it('a file too large for one string is said to be unreadable, not to be other than UTF-8', () => {
    // What decoding some 560 MB of text throws, without the 560 MB.
    const tooLong = Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), { code: 'ERR_STRING_TOO_LONG' });
    const decode = vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(() => {
      throw tooLong;
    });
    try {
      expect(() => sbomText('huge.json', new Uint8Array([0x7b, 0x7d]))).toThrow('huge.json: cannot be read (ERR_STRING_TOO_LONG)');
    } finally {
      decode.mockRestore();
    }
  });

  it('reads the SBOM from standard input when the file is "-" (`syft … -o cyclonedx-json | vulnintel scan -`): it was a file named "-", ENOENT', async () => {
    const bytes = await readFile(CDX);
    const sbom = await readSbom('-', Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]));
    expect(sbom.components).toEqual((await readSbom(CDX)).components);
    expect((await readSbom('-', Readable.from([gzipSync(bytes)]))).components).toHaveLength(sbom.components.length);
    await expect(readSbom('-', Readable.from([]))).rejects.toThrow('standard input: is empty (expected a CycloneDX or SPDX JSON SBOM)');
  });

  it('reads a gzip-compressed SBOM (sbom.cdx.json.gz, as CI jobs keep them): it was called Latin-1 text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-sbom-'));
    try {
      const file = join(dir, 'sample.cdx.json.gz');
      await writeFile(file, gzipSync(await readFile(CDX)));
      expect(await readSbom(file)).toEqual(await readSbom(CDX));
      // Cut short: named as a broken gzip file, not as JSON or text it is not.
      await writeFile(file, gzipSync(await readFile(CDX)).subarray(0, 200));
      await expect(readSbom(file)).rejects.toThrow(`${file}: is gzip-compressed but cannot be decompressed`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that is not UTF-8, naming what it is, rather than reading its names altered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-sbom-'));
    try {
      const doc = '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"name":"caf\u00e9","version":"1.0.0","purl":"pkg:npm/caf%C3%A9@1.0.0"}]}';
      // Latin-1: é as the one byte E9. It was read as U+FFFD ("caf\uFFFD"), the scan going on.
      await writeFile(join(dir, 'latin1.json'), Buffer.from(doc, 'latin1'));
      await expect(readSbom(join(dir, 'latin1.json'))).rejects.toThrow(`${join(dir, 'latin1.json')}: is not UTF-8 text`);
      // UTF-16 with its byte order mark: refused as JSON, quoting replacement characters.
      await writeFile(join(dir, 'utf16.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc, 'utf16le')]));
      await expect(readSbom(join(dir, 'utf16.json'))).rejects.toThrow(`${join(dir, 'utf16.json')}: is UTF-16 text (it starts with a UTF-16 byte order mark)`);
      // The same document in UTF-8 (with or without a byte order mark) is read as written.
      await writeFile(join(dir, 'utf8.json'), `\uFEFF${doc}`);
      expect((await readSbom(join(dir, 'utf8.json'))).components[0]).toMatchObject({ name: 'caf\u00e9' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('scanning', () => {
  let result: ScanResult;
  beforeAll(async () => {
    result = scanComponents(index, (await readSbom(CDX)).components);
  });
  it('finds the affected components, ordered by service risk, KEV first among equals', () => {
    expect(result.findings.map((f) => f.cve_id)).toContain('CVE-2026-90104');
    const risks = result.findings.map((f) => f.service_risk);
    expect(risks).toEqual([...risks].sort((a, b) => b - a));
    expect(result.findings[0]).toMatchObject({ cve_id: 'CVE-2026-90104', kev: true, upgrade_to: '1.20.3' });
    expect(result.upgrades).toContainEqual(expect.objectContaining({ component: result.findings[0]!.component.ref, ecosystem: 'npm', to: '1.20.3', statement: expect.stringContaining('Upgrade to 1.20.3') }));
    const openssl = result.findings.filter((f) => f.cve_id === 'CVE-2026-90116').map((f) => f.upgrade_to).sort();
    expect(openssl).toEqual(['1:3.0.7-28.el9_4', '3.0.11-1~deb12u2', '3.3.2-r1']);
    expect(result.findings.some((f) => f.component.name === 'koa' || f.component.name === 'torch')).toBe(false);
  });
  it("judges a distribution binary as the source package its SBOM records: Syft's `upstream` qualifier, Trivy's SrcName properties", () => {
    // A Debian 12 image's libssl3 (built from openssl) and Alpine's libcrypto3, as Syft and Trivy
    // write them: asked by the binary's name they found none of openssl's advisories.
    const trivy = (name: string, purl: string, props: Record<string, string>) => ({
      name, purl, 'bom-ref': purl, properties: Object.entries(props).map(([k, v]) => ({ name: `aquasecurity:trivy:${k}`, value: v })),
    });
    const sbom = parseSbom('image.cdx.json', JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', components: [
        { name: 'libssl3', 'bom-ref': 'syft-deb', purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&upstream=openssl&distro=debian-12' },
        trivy('libssl3', 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12.5', { PkgType: 'debian', SrcName: 'openssl', SrcVersion: '3.0.11', SrcRelease: '1~deb12u1' }),
        trivy('libcrypto3', 'pkg:apk/alpine/libcrypto3@3.3.2-r0?arch=x86_64&distro=3.20.3', { PkgType: 'alpine', SrcName: 'openssl', SrcVersion: '3.3.2-r0' }),
        // Trivy's source version is the one judged (epoch:version-release): here the fixed one.
        trivy('libssl3', 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1%2Bb1?distro=debian-12', { SrcName: 'openssl', SrcEpoch: '0', SrcVersion: '3.0.11', SrcRelease: '1~deb12u2' }),
      ],
    }));
    expect(sbom.components[1]!.source).toEqual({ name: 'openssl', version: '3.0.11-1~deb12u1' });
    // Trivy's SPDX says it in `sourceInfo`.
    const spdx = parseSbom('image.spdx.json', JSON.stringify({
      spdxVersion: 'SPDX-2.3', packages: [{
        SPDXID: 'SPDXRef-Package-libssl3', name: 'libssl3', versionInfo: '3.0.11-1~deb12u1', sourceInfo: 'built package from: openssl 3.0.11-1~deb12u1',
        externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12.5' }],
      }],
    }));
    expect(spdx.components[0]!.source).toEqual({ name: 'openssl', version: '3.0.11-1~deb12u1' });
    expect(scanComponents(index, spdx.components).findings.map((f) => [f.cve_id, f.upgrade_to])).toEqual([['CVE-2026-90116', '3.0.11-1~deb12u2']]);
    const scanned = scanComponents(index, sbom.components);
    expect(scanned.judged).toBe(4);
    expect(scanned.findings.filter((f) => f.cve_id === 'CVE-2026-90116').map((f) => [f.component.ref, f.version, f.upgrade_to]).sort()).toEqual([
      ['pkg:apk/alpine/libcrypto3@3.3.2-r0?arch=x86_64&distro=3.20.3', '3.3.2-r0', '3.3.2-r1'],
      ['pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12.5', '3.0.11-1~deb12u1', '3.0.11-1~deb12u2'],
      ['syft-deb', '3.0.11-1~deb12u1', '3.0.11-1~deb12u2'],
    ]);
  });
  it('lists what it cannot judge: no purl, unknown ecosystem, unparseable version', () => {
    expect(result.unjudged.map((u) => [u.component.name, u.reason.split(':')[0]])).toEqual([
      ['internal-tool', 'no purl'],
      ['AFNetworking', 'unknown ecosystem'],
      ['transformers', 'unparseable version'],
    ]);
    expect(result.judged + result.unjudged.length).toBe(result.components);
  });
  it('--fail-on: critical, high, kev', () => {
    expect(failsOn(result.findings, 'kev')).toBe(true);
    expect(failsOn(result.findings.filter((f) => !f.kev), 'kev')).toBe(false);
    expect(failsOn(result.findings.filter((f) => f.service_severity === 'MEDIUM'), 'high')).toBe(false);
    expect(failsOn(result.findings, undefined)).toBe(false);
  });
  it('writes SARIF 2.1.0: rules, results with ruleId, level, message and the SBOM as location', () => {
    const sarif = JSON.parse(renderSarif(result, { file: 'sample.cdx.json', buildId: 'b', format: 'CycloneDX 1.5' }));
    expect(sarif.version).toBe('2.1.0');
    const run0 = sarif.runs[0];
    const ruleIds = run0.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect(run0.results).toHaveLength(result.findings.length);
    for (const r of run0.results) {
      expect(ruleIds[r.ruleIndex]).toBe(r.ruleId);
      expect(['error', 'warning', 'note']).toContain(r.level);
      expect(r.message.text).toMatch(/is affected by CVE-/);
      expect(r.locations[0].physicalLocation.artifactLocation.uri).toBe('sample.cdx.json');
    }
    expect(run0.invocations[0].toolExecutionNotifications).toHaveLength(3);
    // One fingerprint per finding, the same for the same finding at another version.
    const prints = run0.results.map((r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints['vulnintelFinding/v1']);
    expect(prints.every((p: unknown) => typeof p === 'string' && /^[0-9a-f]{64}$/.test(p as string))).toBe(true);
    expect(new Set(prints).size).toBe(new Set(result.findings.map((f) => `${f.cve_id ?? f.advisory_ids[0]} ${f.ecosystem} ${f.package_name} ${f.component.name}`)).size);
    const bumped = { ...result, findings: result.findings.map((f) => ({ ...f, version: `${f.version}-next` })) };
    const again = JSON.parse(renderSarif(bumped, { file: 'sample.cdx.json', buildId: 'b', format: 'CycloneDX 1.5' })).runs[0].results;
    expect(again.map((r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints['vulnintelFinding/v1'])).toEqual(prints);
  });
  it('writes what GitHub code scanning requires of SARIF: rule descriptions and help text, a region on each location', () => {
    // docs.github.com "SARIF support for code scanning": reportingDescriptor fullDescription.text
    // and help.text, physicalLocation region.startLine are required; security-severity a string
    // number 0.0-10.0.
    const run0 = JSON.parse(renderSarif(result, { file: 'sample.cdx.json', buildId: 'b', format: 'CycloneDX 1.5' })).runs[0];
    for (const rule of run0.tool.driver.rules) {
      expect(rule.shortDescription.text).toMatch(/\S/);
      expect(rule.fullDescription.text).toMatch(/\S/);
      expect(rule.help.text).toContain(rule.id);
      expect(rule.help.text).toContain(rule.helpUri);
      expect(rule.properties['security-severity']).toMatch(/^(10|\d)\.\d$/);
    }
    const openssl = run0.tool.driver.rules.find((r: { id: string }) => r.id === 'CVE-2026-90116');
    // One rule for every package it was found in, each named with its fix.
    for (const text of ['Alpine:v3.20 openssl: fixed in 3.3.2-r1', 'Debian:12 openssl: fixed in 3.0.11-1~deb12u2']) expect(openssl.help.text).toContain(text);
    for (const r of run0.results) expect(r.locations[0].physicalLocation.region).toEqual({ startLine: 1 });
  });
  it('gives no security-severity to a finding whose CVE nobody has rated: unknown, not 0.0', () => {
    const unrated = { ...result, findings: [{ ...result.findings[0]!, score_assessed: false, service_score: 0, service_severity: 'NONE' }] };
    const rule = JSON.parse(renderSarif(unrated, { file: 'sample.cdx.json', buildId: 'b', format: 'CycloneDX 1.5' })).runs[0].tool.driver.rules[0];
    expect(rule.properties).not.toHaveProperty('security-severity');
    expect(rule.fullDescription.text).toContain('not rated');
  });
  it('reports an advisory that names no CVE by its own id, in the findings, the SARIF rules and --fail-on', () => {
    const sbom = parseSbom('ua.cdx.json', JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: 'ua-parser-js', purl: 'pkg:npm/ua-parser-js@0.7.29' }] }));
    const found = scanComponents(index, sbom.components);
    expect(found.findings.map((f) => [f.cve_id, f.advisory_ids, f.service_severity, f.upgrade_to])).toEqual([[null, ['GHSA-pjwm-rvh2-c87w'], 'CRITICAL', '0.7.30']]);
    const run0 = JSON.parse(renderSarif(found, { file: 'ua.cdx.json', buildId: 'b', format: 'CycloneDX 1.6' })).runs[0];
    expect(run0.tool.driver.rules).toEqual([expect.objectContaining({ id: 'GHSA-pjwm-rvh2-c87w', helpUri: 'https://osv.dev/vulnerability/GHSA-pjwm-rvh2-c87w' })]);
    expect(run0.results[0]).toMatchObject({ ruleId: 'GHSA-pjwm-rvh2-c87w', level: 'error' });
    expect(run0.results[0].message.text).toContain('is affected by GHSA-pjwm-rvh2-c87w (CRITICAL');
    expect(failsOn(found.findings, 'critical')).toBe(true);
  });

  it('names the SBOM in SARIF by a URI reference: a path with a space, # or % is percent-encoded (it was written as given)', () => {
    const uris = (file: string) => {
      const run0 = JSON.parse(renderSarif(result, { file, buildId: 'b', format: 'CycloneDX 1.5' })).runs[0];
      return [run0.artifacts[0].location.uri, ...run0.results.map((r: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) => r.locations[0]!.physicalLocation.artifactLocation.uri)];
    };
    for (const uri of uris('sboms/my app #2 100%.cdx.json')) expect(uri).toBe('sboms/my%20app%20%232%20100%25.cdx.json');
    // A path with nothing to escape is written as before, a relative or an absolute one.
    for (const uri of uris('test/fixtures/sbom/sample.cdx.json')) expect(uri).toBe('test/fixtures/sbom/sample.cdx.json');
    for (const uri of uris('/srv/sboms/sample.cdx.json')) expect(uri).toBe('/srv/sboms/sample.cdx.json');
    // A first segment with a colon is not read as a scheme.
    expect(uris('c:sbom.json')[0]).toBe('c%3Asbom.json');
  });
});

describe('the package index stored with the serving files', () => {
  it('holds the rows the index query gives, in its order, for the same answers', async () => {
    const buildId = (await readCurrentBuildId(dataDir))!;
    const text = await readFile(join(servingDir(join(snapshotsDir(dataDir), buildId)), SERVING_PACKAGES), 'utf8');
    const stored = PackageIndex.fromLines(text);
    expect(stored.rowCount).toBe(index.rowCount);
    expect(stored.rowCount).toBeGreaterThan(20);
    const packages = new Set(text.trim().split('\n').map((line) => { const r = JSON.parse(line) as { ecosystem: string; package_name: string }; return `${r.ecosystem}\u0000${r.package_name}`; }));
    for (const key of packages) {
      const [ecosystem, name] = key.split('\u0000') as [string, string];
      expect(JSON.stringify(listAdvisories(stored, { ecosystem, name, version: null }))).toBe(JSON.stringify(listAdvisories(index, { ecosystem, name, version: null })));
    }
    const narrowed = PackageIndex.fromLines(text, ['MLflow', 'zope.interface']);
    expect(narrowed.rowsOf('PyPI', 'mlflow').length).toBe(index.rowsOf('PyPI', 'mlflow').length);
    expect(narrowed.rowsOf('npm', 'body-parser')).toEqual([]);
  });
});

describe('vulnintel scan (the command)', () => {
  it('answers the same from the serving files and, for a snapshot without them, from its Parquet files', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'vulnintel-scan-data-'));
    await cp(dataDir, copy, { recursive: true });
    const buildId = (await readCurrentBuildId(copy))!;
    await rm(servingDir(join(snapshotsDir(copy), buildId)), { recursive: true });
    const fromParquet = await cli(['scan', CDX, '--data', copy, '--format', 'json']);
    const fromServing = await cli(['scan', CDX, '--data', dataDir, '--format', 'json']);
    expect(fromServing.code).toBe(0);
    expect(JSON.parse(fromServing.stdout).findings.length).toBeGreaterThan(5);
    expect(fromParquet.stdout).toBe(fromServing.stdout);
    await rm(copy, { recursive: true, force: true });
  }, 120_000);
  it('from the Parquet files of a snapshot built before advisory_packages existed: the CVEs judged as before, no damage said', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'vulnintel-scan-older-'));
    await cp(dataDir, copy, { recursive: true });
    const snapshot = join(snapshotsDir(copy), (await readCurrentBuildId(copy))!);
    await rm(servingDir(snapshot), { recursive: true });
    await rm(join(snapshot, 'advisory_packages.parquet'));
    const sbom = join(copy, 'ua.cdx.json');
    await writeFile(sbom, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: 'ua-parser-js', purl: 'pkg:npm/ua-parser-js@0.7.29' }, { name: 'body-parser', purl: 'pkg:npm/body-parser@1.20.2' }] }));
    // The manifest still lists the table: the file is missing, the snapshot damaged.
    const damaged = await cli(['scan', sbom, '--data', copy, '--format', 'json']);
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain('table advisory_packages');
    // Its build did not write it: the snapshot is whole, its CVEs judged.
    const manifestFile = join(snapshot, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    delete manifest.tables.advisory_packages;
    await writeFile(manifestFile, JSON.stringify(manifest));
    const older = await cli(['scan', sbom, '--data', copy, '--format', 'json']);
    expect(older.code).toBe(0);
    expect(JSON.parse(older.stdout).findings.map((f: { cve_id: string | null }) => f.cve_id)).toEqual(['CVE-2026-90104']);
    await rm(copy, { recursive: true, force: true });
  }, 120_000);
  it('a packages.ndjson cut short is not read: the scan answers from the Parquet files, as with the whole file', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'vulnintel-scan-cut-'));
    await cp(dataDir, copy, { recursive: true });
    const file = join(servingDir(join(snapshotsDir(copy), (await readCurrentBuildId(copy))!)), SERVING_PACKAGES);
    const whole = await readFile(file, 'utf8');
    const lines = whole.split('\n');
    const whole0 = await cli(['scan', CDX, '--data', dataDir, '--format', 'json']);
    expect(JSON.parse(whole0.stdout).findings.length).toBeGreaterThan(5);
    // Cut inside a line: a SyntaxError and its stack. Cut at a line's end: packages missing, findings lost.
    for (const cut of [whole.slice(0, Math.floor(whole.length / 2)), `${lines.slice(0, 3).join('\n')}\n`]) {
      await writeFile(file, cut);
      const out = await cli(['scan', CDX, '--data', copy, '--format', 'json']);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe(whole0.stdout);
    }
    await rm(copy, { recursive: true, force: true });
  }, 120_000);
  it('from the Parquet files, an SBOM of packages the snapshot does not know: no finding, exit 0 (it was a TypeError, exit 1)', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'vulnintel-scan-unknown-'));
    await cp(dataDir, copy, { recursive: true });
    await rm(servingDir(join(snapshotsDir(copy), (await readCurrentBuildId(copy))!)), { recursive: true });
    const sbom = join(copy, 'unknown.cdx.json');
    await writeFile(sbom, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: 'nowhere', purl: 'pkg:npm/not-in-any-snapshot@1.0.0' }] }));
    const out = await cli(['scan', sbom, '--data', copy, '--fail-on', 'high']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('1 components, 1 judged, 0 findings');
    await rm(copy, { recursive: true, force: true });
  }, 120_000);
  it('from the Parquet files, a package name holding a NUL or quotes is looked up as written (a NUL cut the query: a DuckDB parser error)', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'vulnintel-scan-nul-'));
    await cp(dataDir, copy, { recursive: true });
    await rm(servingDir(join(snapshotsDir(copy), (await readCurrentBuildId(copy))!)), { recursive: true });
    const sbom = join(copy, 'odd.cdx.json');
    const components = [
      { name: 'nul', purl: 'pkg:npm/a%00b@1.0.0' },
      { name: 'quotes', purl: "pkg:npm/x'%00')%20OR%20true%20OR%20('@1.0.0" },
      { name: 'mlflow', purl: 'pkg:pypi/mlflow@2.18.0' },
    ];
    await writeFile(sbom, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components }));
    const fromParquet = await cli(['scan', sbom, '--data', copy, '--format', 'json']);
    expect(fromParquet.stderr).toBe('');
    expect(fromParquet.code).toBe(0);
    // The same answer as the serving files give: the odd names match nothing, mlflow its rows.
    const fromServing = await cli(['scan', sbom, '--data', dataDir, '--format', 'json']);
    expect(fromParquet.stdout).toBe(fromServing.stdout);
    expect(JSON.parse(fromParquet.stdout).findings.length).toBeGreaterThan(0);
    await rm(copy, { recursive: true, force: true });
  }, 120_000);
  it('prints the table and exits 1 with --fail-on kev, 0 without', async () => {
    const failing = await cli(['scan', CDX, '--data', dataDir, '--fail-on', 'kev']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/CVE-2026-90104 .*KEV|KEV .*CVE-2026-90104/);
    expect(failing.stdout).toContain('Not judged (3 components):');
    const spdx = await cli(['scan', SPDX, '--data', dataDir, '--format', 'json']);
    expect(spdx.code).toBe(0);
    expect(JSON.parse(spdx.stdout)).toMatchObject({ format: 'SPDX SPDX-2.3', components: 9 });
  }, 120_000);
  it('shows control characters of the SBOM as escapes in the table: a crafted name cannot rewrite the screen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-sbom-'));
    const crafted = join(dir, 'crafted.cdx.json');
    // Cursor up and erase line: printed raw, the line above (a finding) would vanish.
    const name = 'left-pad\u001b[1A\u001b[2K\r\nlooks clean\u202e1.0.0';
    await writeFile(crafted, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ type: 'library', name, version: '1.0.0' }] }));
    const r = await cli(['scan', crafted, '--data', dataDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(r.stdout).toContain('left-pad\\u001b[1A\\u001b[2K\\u000d\\u000alooks clean\\u202e1.0.0');
    expect(r.stdout).toContain('Not judged (1 component):');
    // JSON is for tools: the name as the SBOM has it.
    const json = await cli(['scan', crafted, '--data', dataDir, '--format', 'json']);
    expect((JSON.parse(json.stdout) as ScanResult).unjudged[0]!.component.name).toBe(name);
  }, 120_000);
  it('exits 2, not the findings code 1, for a usage error; --help exits 0', async () => {
    // Exit 1 is "a finding reaches --fail-on": a typo in a CI job read as vulnerabilities found.
    for (const args of [
      ['scan', CDX, '--data', dataDir, '--fail-on', 'critcal'],
      ['scan', CDX, '--data', dataDir, '--format', 'xml'],
      ['scan', CDX, '--data', dataDir, '--no-such-option'],
      ['scan', '--data', dataDir],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^error: /);
      expect(r.stdout, args.join(' ')).toBe('');
    }
    const help = await cli(['scan', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: vulnintel scan');
  }, 120_000);
  it('exits 2 naming the file for a malformed SBOM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-sbom-'));
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"bomFormat":"CycloneDX","specVersion":"1.6","components":{}}');
    const r = await cli(['scan', bad, '--data', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}: "components" is not an array`);
    // The parser's message quotes the file: its control characters reach the terminal as escapes.
    const quoted = join(dir, 'quoted.json');
    await writeFile(quoted, 'not json \u001b[2J here');
    const q = await cli(['scan', quoted, '--data', dataDir]);
    expect(q.code).toBe(2);
    expect(q.stderr).toContain('not json \\u001b[2J here');
    expect(q.stderr).not.toContain('\u001b');
  }, 120_000);
});
