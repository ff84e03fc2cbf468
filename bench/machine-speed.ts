/**
 * How fast this machine is right now, on a fixed workload, so benchmark figures taken at
 * different times can be compared: a shared VM's speed drifts (this project's 2-core VM by up to
 * a half within minutes), and a slower build may be the machine, not the code.
 *
 * The workload is what the build spends most of its JavaScript time on: JSON.parse and
 * JSON.stringify of NVD-like records (a fixed 4 MB document), run for `seconds` on each core at
 * once (one worker thread per core), reported as MB/s per core.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const records = [];
for (let i = 0; i < 4000; i++) {
  records.push({
    cve: { id: 'CVE-2024-' + String(10000 + i), published: '2024-03-0' + (i % 9 + 1) + 'T12:00:00.000',
      descriptions: [{ lang: 'en', value: 'A flaw in component ' + i + ' allows a remote attacker to execute code via crafted input. '.repeat(3) }],
      metrics: { cvssMetricV31: [{ source: 'nvd@nist.gov', cvssData: { baseScore: (i % 100) / 10, vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' } }] },
      configurations: [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:vendor' + (i % 50) + ':product' + i + ':*:*:*:*:*:*:*:*' }] }] }],
      references: [{ url: 'https://example.org/advisory/' + i, tags: ['Vendor Advisory'] }] },
  });
}
const text = JSON.stringify({ vulnerabilities: records });
const until = Date.now() + workerData.ms;
let bytes = 0;
while (Date.now() < until) {
  const doc = JSON.parse(text);
  bytes += JSON.stringify(doc).length;
}
parentPort.postMessage(bytes / (workerData.ms / 1000) / 1e6);
`;

/** MB/s of the JSON workload on each core, measured at once on every core. */
export async function machineSpeed(seconds = 2): Promise<number[]> {
  const cores = availableParallelism();
  return Promise.all(
    Array.from(
      { length: cores },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(WORKER, { eval: true, workerData: { ms: seconds * 1000 } });
          worker.once('message', (mbs: number) => {
            resolve(mbs);
            void worker.terminate();
          });
          worker.once('error', reject);
        }),
    ),
  );
}

/** One line for a benchmark's output: the per-core figures and their sum. */
export async function describeMachineSpeed(when: string): Promise<string> {
  const perCore = await machineSpeed();
  const total = perCore.reduce((a, b) => a + b, 0);
  return `machine speed ${when}: JSON round-trip ${perCore.map((x) => x.toFixed(0)).join(' + ')} = ${total.toFixed(0)} MB/s on ${perCore.length} cores (a fixed workload: compare runs by it)`;
}
