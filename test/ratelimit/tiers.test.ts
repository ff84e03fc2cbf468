import { describe, expect, it } from 'vitest';
import { CVES, OTHER, PULSE, STANDARD, tierOfPath } from '../../api/ratelimit/tiers.ts';

describe('tierOfPath (contract §8.1 table)', () => {
  it.each([
    ['/api/v1/public/cves', CVES],
    ['/api/v1/public/cves/', CVES],
    ['/api/v1/public/cves/CVE-2024-0001/enrichment', CVES],
    ['/api/v1/public/cves/export.ndjson', CVES],
    ['/api/v1/public/vendor-advisories', STANDARD],
    ['/api/v1/public/vendor-advisories/redhat/RHSA-2024:0001', STANDARD],
    ['/api/v1/public/cwes', STANDARD],
    ['/api/v1/public/ecosystems', STANDARD],
    ['/api/v1/public/vendors', STANDARD],
    ['/api/v1/public/shadow-ai-radar', STANDARD],
    ['/api/v1/public/kev/recent', STANDARD],
    // Not named by the table: the last row (600, 10), as /changes.
    ['/api/v1/public/packages', OTHER],
    ['/api/v1/public/packages/PyPI/mlflow', OTHER],
    ['/api/v1/public/packages/batch', OTHER],
    // Under /cves, as every path under it.
    ['/api/v1/public/cves/batch', CVES],
    ['/api/v1/public/cves/batchx', CVES],
    ['/api/v1/public', OTHER],
    ['/api/v1/public/', OTHER],
    ['/api/v1/public/kev', OTHER],
    ['/api/v1/public/cvesfoo', OTHER],
    ['/api/v1/public/cwesx', OTHER],
    ['/api/v1/public/anything/else', OTHER],
    ['/pulse', PULSE],
    ['/pulse/cves', PULSE],
    ['/pulse/cves/CVE-2024-0001', PULSE],
    ['/pulse/subscribe', PULSE],
    // The subscription API and the form's suggestions are the web area's tier (docs/rate-limits.md).
    ['/pulse/api/subscriptions', PULSE],
    ['/pulse/api/subscriptions/abc/pause', PULSE],
    ['/pulse/suggest', PULSE],
    ['/api/v1/public/changes', OTHER],
    ['/api/v1/public/cves/CVE-2024-3400/history', CVES],
    ['/pulse/feeds/changes.atom', OTHER],
    ['/pulse/stream', OTHER],
  ] as const)('%s → tier %i', (path, tier) => {
    expect(tierOfPath(path)).toBe(tier);
  });

  it.each(['/api/v1/openapi.json', '/api/v1/docs', '/health', '/pulse/assets/pulse.css', '/pulsex', '/api/v1/publicity', '/', '/api/v2/public/cves'])(
    '%s is not limited',
    (path) => {
      expect(tierOfPath(path)).toBeUndefined();
    },
  );
});
