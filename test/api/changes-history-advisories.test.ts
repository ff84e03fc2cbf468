/**
 * `/cves/{id}/history` (PULSE §3, docs/api-resources.md: "the CVE's changes and those of
 * advisories naming it") for vendor advisories naming several CVEs: two hand-made builds, the
 * second adding an advisory that names two CVEs and an advisory that comes to name two more.
 * A change row keeps one `cve_id` (the first named), so the history must find the others in the
 * advisory's `cve_ids`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../cli/build/build.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { csafDocument, writeCorpus, type NvdCase } from '../helpers/raw-corpus.ts';
import { startOn, type SampleServer } from './server-harness.ts';

const CVES: NvdCase[] = ['CVE-2026-51001', 'CVE-2026-51002', 'CVE-2026-51003', 'CVE-2026-51004'].map((id) => ({
  id,
  metrics: [{ version: '3.1', source: 'nvd@nist.gov', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }],
}));

/** A CSAF advisory naming `cves`, in order. */
function advisory(trackingId: string, cves: string[]): Record<string, unknown> {
  const doc = csafDocument({ trackingId, cve: cves[0]!, severityText: 'Important' }) as { vulnerabilities: Array<Record<string, unknown>> };
  doc.vulnerabilities = cves.map((cve) => ({ ...doc.vulnerabilities[0], cve }));
  return doc;
}

async function putAdvisory(raw: string, trackingId: string, cves: string[]): Promise<void> {
  await mkdir(join(raw, 'csaf', 'redhat'), { recursive: true });
  await writeFile(join(raw, 'csaf', 'redhat', `${trackingId.toLowerCase().replace(/[^a-z0-9-]+/g, '_')}.json`), JSON.stringify(advisory(trackingId, cves)));
}

async function build(raw: string, data: string) {
  process.env.VULNINTEL_QUIET = '1';
  return buildSnapshot(await resolveBuildOptions({ raw, data, keep: 5 }));
}

interface History { changes: Array<{ subject_type: string; advisory_id: string | null; kind: string }> }

let api: SampleServer;

beforeAll(async () => {
  const raw = await writeCorpus({ nvd: CVES });
  const data = await mkdtemp(join(tmpdir(), 'vulnintel-history-advisories-'));
  await putAdvisory(raw, 'RHSA-2026:0001', ['CVE-2026-51001']);
  await build(raw, data);
  await putAdvisory(raw, 'RHSA-2026:0001', ['CVE-2026-51001', 'CVE-2026-51003', 'CVE-2026-51004']);
  await putAdvisory(raw, 'RHSA-2026:0002', ['CVE-2026-51001', 'CVE-2026-51002']);
  const second = await build(raw, data);
  api = await startOn(data, second.buildId);
}, 240_000);

afterAll(async () => {
  await api?.server.close();
});

async function historyOf(id: string): Promise<string[]> {
  const { status, body } = await api.json<History>(`/api/v1/public/cves/${id}/history`);
  expect(status).toBe(200);
  return body.changes.filter((c) => c.subject_type === 'advisory').map((c) => `${c.advisory_id} ${c.kind}`).sort();
}

describe('GET /api/v1/public/cves/{id}/history: advisories naming several CVEs', () => {
  it('lists a new advisory in the history of every CVE it names, not only the first', async () => {
    expect(await historyOf('CVE-2026-51002')).toEqual(['RHSA-2026:0002 new_advisory']);
  });

  it('lists an advisory that came to name CVEs in the history of each CVE it added', async () => {
    expect(await historyOf('CVE-2026-51003')).toEqual(['RHSA-2026:0001 advisory_linked']);
    expect(await historyOf('CVE-2026-51004')).toEqual(['RHSA-2026:0001 advisory_linked']);
  });

  it('leaves out an advisory change that is not about the CVE (it named it before)', async () => {
    expect(await historyOf('CVE-2026-51001')).toEqual(['RHSA-2026:0002 new_advisory']);
  });
});
