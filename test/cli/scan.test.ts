/**
 * `vulnintel scan`: CycloneDX and SPDX SBOMs against the sample snapshot — findings by service
 * risk with KEV and EPSS, components that cannot be judged listed, SARIF 2.1.0 structure,
 * `--fail-on` exit codes, malformed files named with what is wrong.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotViews } from '../../cli/commands/sql.ts';
import { renderSarif } from '../../cli/scan/render.ts';
import { failsOn, scanComponents, type ScanResult } from '../../cli/scan/scan.ts';
import { PackageIndex } from '../../lib/packages/index.ts';
import { parseSbom, readSbom, SbomFormatError } from '../../lib/sbom/read.ts';
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
  it('names the file and what is wrong', () => {
    expect(() => parseSbom('a.json', '{oops')).toThrow(/^a\.json: not valid JSON/);
    expect(() => parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.2"}')).toThrow('a.json: CycloneDX specVersion "1.2" is not supported');
    expect(() => parseSbom('a.json', '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"version":"1"}]}')).toThrow('a.json: components[0] has no "name"');
    expect(() => parseSbom('a.json', '{"spdxVersion":"SPDX-2.1"}')).toThrow(SbomFormatError);
    expect(() => parseSbom('a.json', '{"hello":1}')).toThrow(/neither a CycloneDX JSON SBOM/);
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
    expect(result.findings[0]).toMatchObject({ cve_id: 'CVE-2026-90104', kev: true, upgrade: { to: '1.20.3' } });
    const openssl = result.findings.filter((f) => f.cve_id === 'CVE-2026-90116').map((f) => f.upgrade?.to).sort();
    expect(openssl).toEqual(['1:3.0.7-28.el9_4', '3.0.11-1~deb12u2', '3.3.2-r1']);
    expect(result.findings.some((f) => f.component.name === 'koa' || f.component.name === 'torch')).toBe(false);
  });
  it('lists what it cannot judge: no purl, unknown ecosystem, unparseable version', () => {
    expect(result.unjudged.map((u) => [u.component.name, u.reason.split(':')[0]])).toEqual([
      ['internal-tool', 'no purl'],
      ['plug', 'unknown ecosystem'],
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
  });
});

describe('vulnintel scan (the command)', () => {
  it('prints the table and exits 1 with --fail-on kev, 0 without', async () => {
    const failing = await cli(['scan', CDX, '--data', dataDir, '--fail-on', 'kev']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/CVE-2026-90104 .*KEV|KEV .*CVE-2026-90104/);
    expect(failing.stdout).toContain('Not judged (3 components)');
    const spdx = await cli(['scan', SPDX, '--data', dataDir, '--format', 'json']);
    expect(spdx.code).toBe(0);
    expect(JSON.parse(spdx.stdout)).toMatchObject({ format: 'SPDX SPDX-2.3', components: 9 });
  }, 120_000);
  it('exits 2 naming the file for a malformed SBOM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-sbom-'));
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"bomFormat":"CycloneDX","specVersion":"1.6","components":{}}');
    const r = await cli(['scan', bad, '--data', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}: "components" is not an array`);
  }, 120_000);
});
