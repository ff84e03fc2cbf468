/**
 * The package endpoints and the batches (issue 12) on a real server over the sample snapshot,
 * whose OSV/GHSA records hold ranges of PyPI, npm, Go, Maven, crates.io, RubyGems, NuGet,
 * Debian, Ubuntu, Alpine, Rocky Linux and a GIT range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { damagedSampleDataDir } from './sample-reader.ts';
import { startOn, startSampleServer, type SampleServer } from './server-harness.ts';

let api: SampleServer;
beforeAll(async () => {
  api = await startSampleServer();
});
afterAll(async () => api?.server.close());

const P = '/api/v1/public';
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('GET /packages/{ecosystem}/{name}', () => {
  it('judges a version: matched ranges, why, upgrade, risk figures', async () => {
    const { status, body, res } = await api.json<Body>(`${P}/packages/pypi/MLflow?version=2.16.5`);
    expect(status).toBe(200);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(body).toMatchObject({ ecosystem: 'PyPI', name: 'MLflow', version: '2.16.5', version_order: 'pep440', affected: true });
    expect(body.vulnerabilities.map((v: Body) => v.cve_id)).toEqual(['CVE-2026-90302']);
    expect(body.vulnerabilities[0]).toMatchObject({ service_severity: 'HIGH', kev: false, matched: [{ introduced: '0', fixed: '2.19.0', advisory_id: 'GHSA-q3vc-8fj2-m5w7' }], fixed_in: '2.19.0' });
    expect(body.upgrade).toEqual([{ ecosystem: 'PyPI', to: '2.19.0', statement: expect.any(String), also_affected_by: ['CVE-2026-90301'] }]);
    expect(body.not_affected_count).toBe(1);
  });

  it('orders several matches by service risk and says when no fix clears them all', async () => {
    const { body } = await api.json<Body>(`${P}/packages/PyPI/mlflow?version=2.18.0`);
    expect(body.vulnerabilities.map((v: Body) => v.cve_id).sort()).toEqual(['CVE-2026-90301', 'CVE-2026-90302']);
    const risks = body.vulnerabilities.map((v: Body) => v.service_risk);
    expect(risks).toEqual([...risks].sort((a, b) => b - a));
    expect(body.vulnerabilities.find((v: Body) => v.cve_id === 'CVE-2026-90301').matched[0]).toMatchObject({ introduced: '2.18.0', last_affected: '2.18.1' });
    expect(body.upgrade[0]).toMatchObject({ to: null, statement: expect.stringContaining('No fixed version') });
  });

  it('lists a CVE that names the package without ranges as undetermined, grouped by reason, never as not affected', async () => {
    const { status, body } = await api.json<Body>(`${P}/packages/Go/github.com%2Follama%2Follama?version=0.12.0`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ affected: false, vulnerabilities: [], not_comparable: [], not_affected_count: 0 });
    expect(body.undetermined).toEqual([
      {
        reason: 'no advisory version ranges: the package is named by the CVE record only, whose version data is not compared',
        ecosystem: 'Go',
        package_name: 'github.com/ollama/ollama',
        cves: [{ cve_id: 'CVE-2026-90305', service_risk: expect.any(Number), service_severity: 'HIGH', kev: false, epss_score: expect.any(Number), advisory_ids: [] }],
      },
    ]);
  });

  it('judges an advisory that names no CVE (the ua-parser-js hijack, GHSA only) by its own ranges and figures, never "not affected"', async () => {
    const { status, body } = await api.json<Body>(`${P}/packages/npm/ua-parser-js?version=0.7.29`);
    expect(status).toBe(200);
    expect(body.affected).toBe(true);
    expect(body.vulnerabilities).toEqual([
      expect.objectContaining({
        cve_id: null,
        advisory_ids: ['GHSA-pjwm-rvh2-c87w'],
        // GHSA's CRITICAL band (the record has no vector): 9.0; risk 100 × 0.45 × 0.9.
        service_score: 9,
        service_severity: 'CRITICAL',
        service_risk: 40.5,
        kev: false,
        epss_score: null,
        matched: expect.arrayContaining([expect.objectContaining({ introduced: '0.7.29', fixed: '0.7.30', advisory_id: 'GHSA-pjwm-rvh2-c87w' })]),
        fixed_in: '0.7.30',
      }),
    ]);
    expect(body.upgrade).toEqual([expect.objectContaining({ ecosystem: 'npm', to: '0.7.30' })]);
    const before = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent('pkg:npm/ua-parser-js@0.7.28')}`);
    expect(before.body).toMatchObject({ affected: false, vulnerabilities: [] });
    const listed = await api.json<Body>(`${P}/packages/npm/ua-parser-js`);
    expect(listed.body.advisories).toContainEqual(expect.objectContaining({ cve_id: null, advisory_ids: ['GHSA-pjwm-rvh2-c87w'], fixed_branches: expect.arrayContaining([expect.objectContaining({ fixed: '0.7.30' })]) }));
  });

  it('lists every advisory with its ranges without a version', async () => {
    const { body } = await api.json<Body>(`${P}/packages/npm/body-parser`);
    expect(body.version).toBeNull();
    expect(body.advisories).toEqual([expect.objectContaining({ cve_id: 'CVE-2026-90104', kev: true, fixed_branches: [expect.objectContaining({ fixed: '1.20.3' }), expect.objectContaining({ limit: '2.0.0' })] })]);
  });

  it('reads names with a slash sent as %2F and ecosystems with a release', async () => {
    const go = await api.json<Body>(`${P}/packages/Go/golang.org%2Fx%2Fcrypto?version=v0.30.0`);
    expect(go.body.vulnerabilities[0]).toMatchObject({ cve_id: 'CVE-2026-90112', fixed_in: '0.31.0' });
    const deb = await api.json<Body>(`${P}/packages/Debian%3A12/openssl?version=3.0.11-1~deb12u1`);
    expect(deb.body.upgrade).toEqual([expect.objectContaining({ ecosystem: 'Debian:12', to: '3.0.11-1~deb12u2' })]);
  });

  it('reads a release spelled as the distribution spells it, as a purl\'s `distro` is read (it found nothing: "not affected")', async () => {
    const affected = async (ecosystem: string, version: string) => {
      const { status, body } = await api.json<Body>(`${P}/packages/${encodeURIComponent(ecosystem)}/openssl?version=${encodeURIComponent(version)}`);
      expect(status).toBe(200);
      return [body.ecosystem, body.affected, body.vulnerabilities.map((v: Body) => v.cve_id)];
    };
    const openssl = ['CVE-2026-90116'];
    expect(await affected('Alpine:3.20', '3.3.2-r0')).toEqual(['Alpine:v3.20', true, openssl]);
    expect(await affected('alpine:3.20.3', '3.3.2-r0')).toEqual(['Alpine:v3.20', true, openssl]);
    expect(await affected('Debian:bookworm', '3.0.11-1~deb12u1')).toEqual(['Debian:12', true, openssl]);
    expect(await affected('Debian:12.5', '3.0.11-1~deb12u1')).toEqual(['Debian:12', true, openssl]);
    expect(await affected('Ubuntu:jammy', '3.0.2-0ubuntu1.17')).toEqual(['Ubuntu:22.04', true, openssl]);
    expect(await affected('Ubuntu:22.04.3', '3.0.2-0ubuntu1.17')).toEqual(['Ubuntu:22.04', true, openssl]);
    expect(await affected('Rocky Linux:9.3', '1:3.0.7-27.el9')).toEqual(['Rocky Linux:9', true, openssl]);
    // OSV's own spellings stand as they are.
    expect(await affected('Alpine:v3.20', '3.3.2-r0')).toEqual(['Alpine:v3.20', true, openssl]);
    expect(await affected('Ubuntu:22.04:LTS', '3.0.2-0ubuntu1.17')).toEqual(['Ubuntu:22.04:LTS', true, openssl]);
    expect(await affected('Debian:11', '3.0.11-1~deb12u1')).toEqual(['Debian:11', false, []]);
  });

  it('400 naming the parameter: unknown ecosystem (with the supported list), unparseable version', async () => {
    const eco = await api.json<Body>(`${P}/packages/hackage/aeson?version=1.0`);
    expect(eco.status).toBe(400);
    expect(eco.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'ecosystem' });
    expect(eco.body.supported).toContain('PyPI');
    const ver = await api.json<Body>(`${P}/packages/npm/body-parser?version=1.2`);
    expect(ver.status).toBe(400);
    expect(ver.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'version' });
    expect(ver.body.message).toContain('"1.2"');
  });
});

describe('GET /packages?purl=', () => {
  it('maps the purl to the OSV package and judges its version', async () => {
    const purl = 'pkg:deb/debian/openssl@3.0.11-1~deb12u1?arch=amd64&distro=debian-12';
    const { body } = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent(purl)}`);
    expect(body).toMatchObject({ purl, ecosystem: 'Debian:12', name: 'openssl', affected: true });
    expect(body.vulnerabilities[0].matched.map((m: Body) => m.range_type).sort()).toEqual(['ECOSYSTEM', 'VERSIONS']);
    // A binary built from openssl (Syft's `upstream`): judged as openssl, whose advisories name the source package.
    const binary = 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&upstream=openssl&distro=debian-12';
    const libssl = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent(binary)}`);
    expect(libssl.body).toMatchObject({ purl: binary, ecosystem: 'Debian:12', name: 'openssl', affected: true });
    expect(libssl.body.vulnerabilities.map((v: Body) => v.cve_id)).toEqual(body.vulnerabilities.map((v: Body) => v.cve_id));
    // An Ubuntu point release (22.04.3) is its release: it found nothing as `Ubuntu:22.04.3`.
    const jammy = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent('pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?distro=ubuntu-22.04.3')}`);
    expect(jammy.body).toMatchObject({ ecosystem: 'Ubuntu:22.04', affected: true, upgrade: [{ ecosystem: 'Ubuntu:22.04:LTS', to: '3.0.2-0ubuntu1.18' }] });
    const maven = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent('pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.3')}`);
    expect(maven.body.upgrade[0].to).toBe('2.13.4.2');
  });
  it('judges a Maven version nested thousands of lists deep (it was a 500: the comparison overflowed the call stack)', async () => {
    // 2.12.7.1-0-0-…-5 equals 2.12.7.1 down to its last item: compared with that fix, item by item.
    const version = `2.12.7.1${'-0'.repeat(7_000)}-5`;
    const answer = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent(`pkg:maven/com.fasterxml.jackson.core/jackson-databind@${version}`)}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ecosystem: 'Maven', name: 'com.fasterxml.jackson.core:jackson-databind', version });
  });
  it('400 for a malformed or unsupported purl, and for none', async () => {
    expect((await api.json<Body>(`${P}/packages?purl=npm/x`)).body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'purl' });
    expect((await api.json<Body>(`${P}/packages?purl=${encodeURIComponent('pkg:cocoapods/AFNetworking@4.0.1')}`)).status).toBe(400);
    // Hex, Pub, Swift and GitHub Actions purls name OSV ecosystems: answered, not refused.
    for (const [purl, ecosystem, name] of [
      ['pkg:hex/plug@1.0.0', 'Hex', 'plug'],
      ['pkg:pub/http@1.1.0', 'Pub', 'http'],
      ['pkg:swift/github.com/apple/swift-nio@2.40.0', 'SwiftURL', 'github.com/apple/swift-nio'],
      ['pkg:githubactions/actions/checkout@4.1.0', 'GitHub Actions', 'actions/checkout'],
    ]) {
      const answer = await api.json<Body>(`${P}/packages?purl=${encodeURIComponent(purl!)}`);
      expect(answer.status, purl).toBe(200);
      expect(answer.body).toMatchObject({ ecosystem, name, affected: false });
    }
    expect((await api.json<Body>(`${P}/packages`)).body).toMatchObject({ parameter: 'purl' });
  });
});

describe('batches', () => {
  it('/packages/batch answers each distinct purl in order, errors in place', async () => {
    const purls = ['pkg:pypi/torch@2.8.0', 'pkg:npm/koa@2.16.3', 'pkg:cocoapods/AFNetworking@4.0.1', 'pkg:pypi/torch@2.8.0', 'pkg:gem/rack@3.0.13', 'pkg:nuget/System.Text.Json@6.0.9'];
    const { status, body } = await api.json<Body>(`${P}/packages/batch?purls=${encodeURIComponent(purls.join(','))}`);
    expect(status).toBe(200);
    expect(body.requested).toBe(5);
    expect(body.results.map((r: Body) => [r.purl, r.affected ?? r.error.code])).toEqual([
      ['pkg:pypi/torch@2.8.0', true],
      ['pkg:npm/koa@2.16.3', false],
      ['pkg:cocoapods/AFNetworking@4.0.1', 'INVALID_PARAMETER'],
      ['pkg:gem/rack@3.0.13', true],
      ['pkg:nuget/System.Text.Json@6.0.9', true],
    ]);
  });
  it('/packages/batch: the ETag names the snapshot and the question, so a repeat (any parameter order) is a 304', async () => {
    const purls = encodeURIComponent('pkg:pypi/torch@2.8.0,pkg:npm/koa@2.16.3');
    const first = await api.get(`${P}/packages/batch?purls=${purls}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const body = await first.text();
    const again = await api.get(`${P}/packages/batch?purls=${purls}&unused=1`);
    expect(await again.text()).toBe(body);
    expect(again.headers.get('etag')).not.toBe(etag);
    const reordered = await api.get(`${P}/packages/batch?unused=1&purls=${purls}`);
    expect(reordered.headers.get('etag')).toBe(again.headers.get('etag'));
    expect((await api.get(`${P}/packages/batch?purls=${purls}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const other = await api.get(`${P}/packages/batch?purls=${encodeURIComponent('pkg:pypi/torch@2.8.0')}`);
    expect(other.headers.get('etag')).not.toBe(etag);
  });
  it('/packages/batch refuses more than 100 purls', async () => {
    const purls = Array.from({ length: 101 }, (_, i) => `pkg:npm/p${i}@1.0.0`).join(',');
    expect((await api.json<Body>(`${P}/packages/batch?purls=${encodeURIComponent(purls)}`)).body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'purls' });
  });
  it('/cves/batch answers records in the order asked, unknown ids apart, duplicates once', async () => {
    const { status, body } = await api.json<Body>(`${P}/cves/batch?ids=cve-2024-3400,CVE-2099-0001,CVE-2023-4966,CVE-2024-3400`);
    expect(status).toBe(200);
    expect(body.requested).toBe(3);
    expect(body.cves.map((r: Body) => r.cve_id)).toEqual(['CVE-2024-3400', 'CVE-2023-4966']);
    expect(body.unknown).toEqual(['CVE-2099-0001']);
    const single = await api.json<Body>(`${P}/cves/CVE-2024-3400`);
    expect(body.cves[0]).toEqual(single.body);
  });
  it('/cves/batch: 400 naming ids for a malformed id, none, or more than 100', async () => {
    expect((await api.json<Body>(`${P}/cves/batch?ids=CVE-2024-3400,nope`)).body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'ids', value: 'nope' });
    expect((await api.json<Body>(`${P}/cves/batch`)).body).toMatchObject({ parameter: 'ids' });
    const many = Array.from({ length: 101 }, (_, i) => `CVE-2024-${10000 + i}`).join(',');
    expect((await api.json<Body>(`${P}/cves/batch?ids=${many}`)).status).toBe(400);
  });
  it('every new path is in the OpenAPI document', async () => {
    const { body } = await api.json<Body>('/api/v1/openapi.json');
    for (const path of ['/packages/{ecosystem}/{name}', '/packages', '/packages/batch', '/cves/batch']) expect(Object.keys(body.paths)).toContain(`${P}${path}`);
  });
});

describe('a snapshot whose affected_packages could not be read', () => {
  it('answers 503 SNAPSHOT_TABLE_UNAVAILABLE naming the table, never "not affected"', async () => {
    const copy = await damagedSampleDataDir(['affected_packages']);
    const damaged = await startOn(copy.dataDir, copy.buildId);
    try {
      const { status, body } = await damaged.json<Body>(`${P}/packages/PyPI/mlflow?version=2.16.5`);
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'SNAPSHOT_TABLE_UNAVAILABLE', table: 'affected_packages' });
      expect((await damaged.json<Body>(`${P}/cves/batch?ids=CVE-2024-3400`)).status).toBe(200);
    } finally {
      await damaged.server.close();
    }
  }, 120_000);
});
