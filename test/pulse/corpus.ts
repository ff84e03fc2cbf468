/**
 * The /pulse test corpus: the bundled sample plus one NVD record whose description and
 * reference hold markup (`<script>`, tags, a `javascript:` URL), so the pages can be shown to
 * render upstream text as text. Built once per test process.
 */
import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCorpus, SAMPLE_RAW } from '../helpers/sample-snapshot.ts';

export const MARKUP_CVE = 'CVE-2026-99901';
export const MARKUP_DESCRIPTION =
  'A crafted <script>window.__pulsePwned = 1</script> payload and <img src=x onerror="window.__pulsePwned = 2"> in the <b>admin</b> panel & "quotes" run as script.';
export const MARKUP_REFERENCE = 'javascript:window.__pulsePwned=3';

function markupPage(): unknown {
  return {
    resultsPerPage: 1,
    startIndex: 0,
    totalResults: 1,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: '2026-11-20T06:05:09.540',
    vulnerabilities: [
      {
        cve: {
          id: MARKUP_CVE,
          sourceIdentifier: 'cve@mitre.org',
          published: '2026-11-02T10:00:00.000',
          lastModified: '2026-11-03T10:00:00.000',
          vulnStatus: 'Analyzed',
          cveTags: [],
          descriptions: [{ lang: 'en', value: MARKUP_DESCRIPTION }],
          metrics: {
            cvssMetricV31: [
              {
                source: 'nvd@nist.gov',
                type: 'Primary',
                cvssData: {
                  version: '3.1',
                  vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
                  baseScore: 6.1,
                  baseSeverity: 'MEDIUM',
                },
                exploitabilityScore: 2.8,
                impactScore: 2.7,
              },
            ],
          },
          weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-79' }] }],
          references: [
            { url: MARKUP_REFERENCE, source: 'cve@mitre.org', tags: [] },
            { url: 'https://example.com/advisory/<b>x</b>', source: 'cve@mitre.org', tags: ['Third Party Advisory'] },
          ],
        },
      },
    ],
  };
}

let pending: Promise<{ rawDir: string; dataDir: string; buildId: string }> | undefined;

export function buildPulseCorpus(): Promise<{ rawDir: string; dataDir: string; buildId: string }> {
  pending ??= (async () => {
    const rawDir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-raw-'));
    await cp(SAMPLE_RAW, rawDir, { recursive: true });
    await writeFile(join(rawDir, 'nvd', 'markup-2026-11-20-page-0000.json'), JSON.stringify(markupPage()));
    const { dataDir, result } = await buildCorpus(rawDir);
    return { rawDir, dataDir, buildId: result.buildId };
  })();
  return pending;
}
