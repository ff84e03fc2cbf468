/**
 * `npm run bench:notify`: `vulnintel notify` matching 10,000 subscriptions against one day of
 * changes (target: ≤ 10 s, issue 9).
 *
 * A realistic day: BENCH_CHANGES rows (default 4,000) in changes.parquet, written in the model's
 * layout — vendors and packages drawn with a long tail (a few vendors make most changes), the
 * kinds in the proportions of a busy day. 10,000 subscriptions (BENCH_SUBSCRIPTIONS) with the
 * filters people set: a vendor (some with a product), a package, a CWE, KEV only, a minimum
 * severity or risk, a search word, kinds; half e-mail, half webhook, all realtime.
 * Delivery goes to real local sinks (an SMTP server and an HTTP receiver on loopback), so the
 * figure is the whole run: reading the changes, matching, the ledger (SQLite, WAL) and sending.
 * Printed: the run, and matching alone (the same changeMatches over the same data).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHANGE_KINDS, type ChangeFilter, type ChangeKind, type ChangeRow } from '../lib/changes/model.ts';
import { ChangeIndex } from '../lib/pulse/change-index.ts';
import { readCurrentChanges } from '../lib/pulse/changes-source.ts';
import { PulseLinks } from '../lib/pulse/links.ts';
import { createMailer } from '../lib/pulse/mailer.ts';
import { formatNotifySummary, runNotify } from '../lib/pulse/notify.ts';
import { openPulseStore } from '../lib/pulse/store/open.ts';
import type { Subscription } from '../lib/pulse/types.ts';
import { change, publishChanges } from '../test/pulse/changes-fixture.ts';
import { startSmtpSink } from '../test/pulse/sinks.ts';

const CHANGES = Number(process.env.BENCH_CHANGES ?? 4000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);
const TARGET_S = 10;

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
/** Index in [0, n) with a long tail: low indices are more likely (the first of 400 gets ~2%). */
const zipf = (n: number) => Math.min(n - 1, Math.floor(n * random() ** 1.5));
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

const VENDORS = Array.from({ length: 400 }, (_, i) => ['microsoft', 'linux', 'google', 'apple', 'oracle', 'cisco', 'adobe', 'apache', 'fortinet', 'ibm'][i] ?? `vendor_${i}`);
const ECOSYSTEMS = ['npm', 'PyPI', 'Maven', 'Go', 'crates.io', 'NuGet', 'RubyGems', 'Packagist'];
const PACKAGES = Array.from({ length: 3000 }, (_, i) => `pkg-${i}`);
const CWES = ['CWE-79', 'CWE-787', 'CWE-89', 'CWE-416', 'CWE-78', 'CWE-20', 'CWE-125', 'CWE-22', 'CWE-352', 'CWE-434', 'CWE-862', 'CWE-476', 'CWE-287', 'CWE-190', 'CWE-502'];
const SEVERITIES = ['LOW', 'MEDIUM', 'MEDIUM', 'HIGH', 'HIGH', 'CRITICAL'] as const;
const WORDS = ['remote', 'overflow', 'injection', 'bypass', 'traversal', 'deserialization', 'xss', 'privilege', 'denial', 'kernel'];
const KIND_WEIGHTS: [ChangeKind, number][] = [
  ['new_cve', 35], ['score_changed', 15], ['severity_changed', 8], ['risk_changed', 10], ['epss_crossed', 8], ['cvss_changed', 8],
  ['new_advisory', 5], ['advisory_linked', 2], ['kev_added', 1], ['exploit_published', 3], ['assessed', 3], ['rejected', 1], ['ssvc_changed', 1],
];
const kindOf = () => {
  let r = random() * KIND_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  for (const [kind, w] of KIND_WEIGHTS) if ((r -= w) < 0) return kind;
  return 'new_cve';
};

function dayOfChanges(buildId: string, detectedAt: string): ChangeRow[] {
  return Array.from({ length: CHANGES }, (_, i) => {
    const kind = kindOf();
    const vendor = VENDORS[zipf(VENDORS.length)]!;
    const ecosystem = random() < 0.3 ? pick(ECOSYSTEMS) : null;
    const advisory = kind === 'new_advisory' || kind === 'advisory_linked';
    const severity = pick(SEVERITIES);
    return change({
      build_id: buildId,
      detected_at: detectedAt,
      kind,
      subject_type: advisory ? 'advisory' : 'cve',
      cve_id: advisory && kind === 'new_advisory' && random() < 0.5 ? null : `CVE-2026-${String(20000 + i)}`,
      vendor: advisory ? vendor : null,
      advisory_id: advisory ? `${vendor}-sa-2026-${i}` : null,
      title: `${pick(WORDS)} ${pick(WORDS)} in ${vendor} product ${i % 50}`,
      why: `${kind.replaceAll('_', ' ')} on ${vendor}.`,
      before: '{"service_score":5.0}',
      after: '{"service_score":7.5}',
      service_severity: severity,
      service_score: 2 + random() * 8,
      service_risk: Math.round(random() * 100),
      in_kev: random() < 0.03,
      epss_score: random() ** 4,
      vendor_severity: advisory ? severity : null,
      vendors: [vendor],
      products: [`${vendor}:product_${i % 50}`],
      ecosystems: ecosystem ? [ecosystem] : [],
      packages: ecosystem ? [`${ecosystem}:${PACKAGES[zipf(PACKAGES.length)]}`] : [],
      cwe_ids: [CWES[zipf(CWES.length)]!],
    });
  });
}

function filterOf(i: number): ChangeFilter {
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
      return { vendor: VENDORS[zipf(VENDORS.length)]! };
    case 3:
      return { vendor: VENDORS[zipf(VENDORS.length)]!, product: `product_${Math.floor(random() * 50)}`, min_severity: 'HIGH' };
    case 4:
      return { ecosystem: pick(ECOSYSTEMS), package: PACKAGES[zipf(PACKAGES.length)]! };
    case 5:
      return { cwe: CWES[zipf(CWES.length)]!, min_risk: 50 };
    case 6:
      return { kev_only: true };
    case 7:
      return { min_severity: 'CRITICAL', kinds: ['new_cve', 'kev_added', 'exploit_published'] };
    case 8:
      return { search: `${pick(WORDS)} ${VENDORS[zipf(20)]}` };
    default:
      return { kinds: [pick(CHANGE_KINDS)], vendor: VENDORS[zipf(30)]! };
  }
}

/** CPU seconds (user + system) of this process since `start`. */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

async function main(): Promise<void> {
  process.env.VULNINTEL_QUIET = '1';
  const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-bench-notify-'));
  const smtp = await startSmtpSink({ parse: false });
  let hooks = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks++;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const store = await openPulseStore(undefined, dataDir);
  const mailer = createMailer(smtp.url, 'vulnintel <pulse@bench.example.org>');
  try {
    const detectedAt = '2026-11-24T06:00:00.000Z';
    await publishChanges(dataDir, 'bench-day', dayOfChanges('bench-day', detectedAt));

    const since = '2026-11-23T06:00:00.000Z';
    const created = performance.now();
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const email = i % 2 === 0;
      const sub: Subscription = {
        id: `bench-${i}`,
        channel: email ? 'email' : 'webhook',
        address: email ? `user${i}@bench.example.org` : `${hookUrl}/${i}`,
        addressKey: email ? `user${i}@bench.example.org` : '127.0.0.1',
        secret: email ? null : `whsec_bench${i}`,
        filter: filterOf(i),
        cadence: 'realtime',
        status: 'active',
        pausedReason: null,
        createdAt: since,
        createdBy: 'bench',
        confirmedAt: since,
        cursorAt: since,
        lastPeriod: null,
        updatedAt: since,
      };
      await store.insertSubscription(sub, []);
    }
    console.log(`setup: ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions stored in ${((performance.now() - created) / 1000).toFixed(1)} s, ${CHANGES.toLocaleString('en-US')} changes of one day in changes.parquet`);

    // Matching alone: read the day, index it, match every subscription (what notify does before any I/O).
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const { changes } = await readCurrentChanges(dataDir, since);
    const subs = await store.activeSubscriptions();
    const index = new ChangeIndex(changes);
    let pairs = 0;
    let matchedSubs = 0;
    for (const sub of subs) {
      const found = index.matches(sub.filter, since, detectedAt).length;
      pairs += found;
      if (found > 0) matchedSubs++;
    }
    const matchMs = performance.now() - t0;
    const matchCpu = cpuSeconds(c0);
    console.log(`matching alone (read changes.parquet, index, match): ${subs.length.toLocaleString('en-US')} subscriptions × ${changes.length.toLocaleString('en-US')} changes in ${(matchMs / 1000).toFixed(2)} s wall, ${matchCpu.toFixed(2)} s CPU; ${matchedSubs.toLocaleString('en-US')} subscriptions matched ${pairs.toLocaleString('en-US')} changes`);

    const links = new PulseLinks('https://pulse.bench.example.org');
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const summary = await runNotify({ dataDir, store, links, mailer, allowPrivateWebhooks: true, concurrency: 16, now: () => new Date('2026-11-24T06:05:00.000Z') });
    const runS = (performance.now() - t1) / 1000;
    const runCpu = cpuSeconds(c1);
    console.log(formatNotifySummary(summary));
    console.log(`  received: ${smtp.messages.length || '(unparsed)'} e-mails, ${hooks} webhook calls`);
    const t2 = performance.now();
    const again = await runNotify({ dataDir, store, links, mailer, allowPrivateWebhooks: true, concurrency: 16, now: () => new Date('2026-11-24T06:10:00.000Z') });
    console.log(`rerun: ${again.sent} sent (nothing new), ${((performance.now() - t2) / 1000).toFixed(1)} s`);
    console.log(`load average during the run: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores (wall time grows with other jobs; CPU time is this process's own work, the sinks' excluded where they run in other processes)`);
    console.log(`notify, ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions × one day of changes (read, match, ledger, deliver to local sinks): ${runS.toFixed(1)} s wall, ${runCpu.toFixed(1)} s CPU (target ≤ ${TARGET_S} s) ${runS <= TARGET_S ? 'OK' : runCpu <= TARGET_S ? 'OK in CPU time, wall time over target on this loaded machine' : 'OVER TARGET'}`);
  } finally {
    mailer.close();
    await store.close();
    await smtp.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
