/**
 * The dashboard's change sections over the changes corpus, served after a build that changed
 * nothing (a rebuild, a poller run with no upstream difference):
 *   - "Last build" is that build, with no change, and "Last 7 days" still counts the week's
 *     changes (PULSE §7: what changed in the last build and in the last 7 days). It showed the
 *     newest build that had recorded changes, as if the served build had made them;
 *   - a top CVE's kinds of change are listed in the tiles' order, the same on every run (they
 *     came in DuckDB's list_distinct order, which changed from one run to the next).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChangesCorpus, rebuild } from '../helpers/changes-corpus.ts';
import { startOn, type SampleServer } from '../api/server-harness.ts';

let api: SampleServer;
let quiet: string;
let changed: string;

beforeAll(async () => {
  const corpus = await buildChangesCorpus();
  changed = corpus.second.buildId;
  quiet = (await rebuild(corpus)).buildId;
  api = await startOn(corpus.dataDir, quiet);
}, 180_000);

afterAll(async () => api?.server.close());

describe('the dashboard\'s changes, after a build that changed nothing', () => {
  it('shows that build under "Last build", with no change, and the week\'s changes under "Last 7 days"', async () => {
    const res = await api.get('/pulse');
    expect(res.status).toBe(200);
    const html = await res.text();
    const panel = /<div class="panel" id="last-build" data-build-id="([^"]*)">([\s\S]*?)<\/div>\s*<div class="panel" id="last-week">([\s\S]*?)<h3>Top changes/.exec(html);
    expect(panel, 'the two change panels').not.toBeNull();
    const [, buildId, lastBuild, lastWeek] = panel!;
    expect(buildId).toBe(quiet);
    expect(lastBuild).toContain(`<code id="last-build-id">${quiet}</code>`);
    expect(lastBuild).not.toContain(changed);
    expect(lastBuild).toMatch(/id="last-build-total" data-live-total="true">0<\/span> <span class="noun">changes<\/span>/);
    expect(lastWeek).toMatch(/id="last-week-total" data-live-total="true">15<\/span>/);
  });

  it('lists each top CVE\'s kinds of change in the order of the tiles (they came in hash order: "risk changed, ssvc changed, kev added, score changed")', async () => {
    const html = await (await api.get('/pulse')).text();
    const row = /CVE-2025-90308<\/a>[\s\S]*?<td data-label="Changes">([^<]*)<\/td>/.exec(html);
    expect(row, 'the KEV addition among the top changes').not.toBeNull();
    expect(row![1]).toBe('KEV added, score changed, risk changed, SSVC changed');
  });

  it('writes the kinds\' acronyms in capitals, in the tiles too (they read "new cve", "kev added", "epss crossed")', async () => {
    const html = await (await api.get('/pulse')).text();
    for (const label of ['new CVE', 'KEV added', 'KEV removed', 'EPSS crossed', 'CVSS changed', 'SSVC changed', 'new advisory']) expect(html, label).toContain(`>${label}<`);
    expect(html).not.toMatch(/>(?:new cve|kev added|epss crossed|cvss changed|ssvc changed)</);
  });
});
