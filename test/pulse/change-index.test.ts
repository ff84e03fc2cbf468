/** The candidate index never changes an answer: its matches equal changeMatches over every change. */
import { describe, expect, it } from 'vitest';
import { CHANGE_KINDS, changeMatches, type ChangeFilter, type ChangeRow } from '../../lib/changes/model.ts';
import { ChangeIndex } from '../../lib/pulse/change-index.ts';
import { change } from './changes-fixture.ts';

let seed = 3;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
const VENDORS = ['Microsoft', 'linux', 'red hat', 'cisco'];
// Colons inside an ecosystem (an OSV release) and inside a name (Maven's group:artifact).
const ECOS = ['npm', 'PyPI', 'Go', 'Ubuntu:22.04:LTS', 'Maven'];
const PKGS = ['Lodash', 'requests', 'x/net', 'org.apache:log4j', 'Zope.Interface'];
const CWES = ['CWE-79', 'cwe-89', 'CWE-22'];
const TIMES = ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z'];

const changes: ChangeRow[] = Array.from({ length: 600 }, (_, i) => {
  const advisory = random() < 0.2;
  const eco = random() < 0.5 ? pick(ECOS) : null;
  return change({
    build_id: 'b',
    detected_at: TIMES[Math.floor((i / 600) * TIMES.length)]!,
    kind: pick(CHANGE_KINDS),
    subject_type: advisory ? 'advisory' : 'cve',
    vendor: advisory ? pick(VENDORS) : null,
    advisory_id: advisory ? `adv-${i}` : null,
    vendors: random() < 0.8 ? [pick(VENDORS).toLowerCase().replace(' ', '_')] : [],
    products: ['microsoft:edge', 'linux:kernel'],
    ecosystems: eco ? [eco] : [],
    packages: eco ? [`${eco}:${pick(PKGS)}`] : [],
    cwe_ids: [pick(CWES)],
    in_kev: random() < 0.2,
    service_severity: pick(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']),
    service_risk: Math.round(random() * 100),
  });
});

function randomFilter(): ChangeFilter {
  const f: ChangeFilter = {};
  if (random() < 0.4) f.vendor = pick([...VENDORS, 'RED HAT', 'nobody']);
  if (random() < 0.2) f.product = pick(['edge', 'kernel']);
  if (random() < 0.3) f.ecosystem = pick([...ECOS, 'PYPI']);
  if (random() < 0.3) f.package = pick([...PKGS, 'lodash', 'zope_interface']);
  if (random() < 0.3) f.cwe = pick([...CWES, 'CWE-89']);
  if (random() < 0.2) f.kev_only = true;
  if (random() < 0.3) f.kinds = [pick(CHANGE_KINDS), pick(CHANGE_KINDS)].filter((k, i, a) => a.indexOf(k) === i);
  if (random() < 0.2) f.min_severity = 'HIGH';
  return f;
}

describe('ChangeIndex', () => {
  it('gives exactly what changeMatches gives, for 500 random filters and windows', () => {
    const index = new ChangeIndex(changes);
    let nonEmpty = 0;
    for (let i = 0; i < 500; i++) {
      const filter = randomFilter();
      const from = pick(['2026-11-19T00:00:00.000Z', ...TIMES]);
      const to = pick(TIMES);
      const expected = changes.filter((c) => c.detected_at > from && c.detected_at <= to && changeMatches(filter, c));
      expect(index.matches(filter, from, to), JSON.stringify({ filter, from, to })).toEqual(expected);
      if (expected.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });
});
