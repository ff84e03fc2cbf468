/**
 * Free-text search and the execution budget (contract 4.1 rules 2, 4-6; DESIGN §6) against
 * real servers on the sample snapshot: one with the default budget, one whose budget is 0 so
 * that every count and every phrase runs out of time deterministically.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, openSampleTruth, startSampleServer, type SampleServer, type SampleTruth } from './server-harness.ts';

interface ListBody {
  cves: { cve_id: string; severity: string }[];
  total: number;
  total_is_lower_bound: boolean;
  total_counted: boolean;
  search_relaxed: boolean;
  reverse_available: boolean;
  next_published?: string | null;
  next_cve_id?: string | null;
}

let normal: SampleServer;
let starved: SampleServer;
let truth: SampleTruth;

beforeAll(async () => {
  normal = await startSampleServer();
  starved = await startSampleServer({ queryBudgetMs: 0 });
  truth = await openSampleTruth();
});

afterAll(async () => {
  truth?.close();
  await normal?.server.close();
  await starved?.server.close();
});

/** Active CVEs whose normalised search text holds every one of `fragments`, newest first. */
function matching(...fragments: string[]): Promise<string[]> {
  const where = fragments.map((f) => `contains(text, ' ${f} ')`).join(' AND ');
  return truth.column<string>(`SELECT cve_id FROM search_docs WHERE status = 'active' AND ${where} ORDER BY published DESC, cve_id DESC`);
}

const search = (server: SampleServer, query: string) => server.json<ListBody>(`/api/v1/public/cves?${query}`);

describe('free-text search', () => {
  it('unquoted words are a conjunction, in any order and any case', async () => {
    const expected = await matching('linux', 'kernel');
    expect(expected.length).toBeGreaterThan(3);
    const { body } = await search(normal, 'search=linux+kernel&limit=200');
    expect(ids(body)).toEqual(expected);
    expect(body.total).toBe(expected.length);
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(false);
    expect(body.search_relaxed).toBe(false);
    expect(body.reverse_available).toBe(false);
    const other = await search(normal, 'search=KERNEL+Linux&limit=200');
    expect(ids(other.body)).toEqual(expected);
  });

  it('a quoted string and a hyphenated compound are phrases, narrower than the conjunction', async () => {
    const phrase = await matching('use after free');
    const conjunction = await matching('use', 'after', 'free');
    expect(phrase.length).toBeGreaterThan(0);
    expect(conjunction.length).toBeGreaterThan(phrase.length);
    for (const query of ['search=%22use+after+free%22', 'search=use-after-free', 'search=Use-After-Free']) {
      const { body } = await search(normal, `${query}&limit=200`);
      expect(ids(body), query).toEqual(phrase);
      expect(body.total).toBe(phrase.length);
      expect(body.search_relaxed).toBe(false);
    }
  });

  it('a phrase in the wrong order finds nothing although its words all occur', async () => {
    expect((await matching('free after use')).length).toBe(0);
    const { body } = await search(normal, 'search=%22free+after+use%22');
    expect(body.cves).toEqual([]);
    expect(body.total).toBe(0);
    expect(body.total_counted).toBe(true);
    expect(body.search_relaxed).toBe(false);
  });

  it('a word no CVE holds gives an exact empty answer', async () => {
    const { body } = await search(normal, 'search=linux+zzqqxxnotaword');
    expect(body.cves).toEqual([]);
    expect(body.total).toBe(0);
    expect(body.total_counted).toBe(true);
  });

  it('search combines with filters and sorts', async () => {
    const expected = await truth.column<string>(
      `SELECT c.cve_id FROM cves c JOIN search_docs d USING (cve_id)
       WHERE c.status = 'active' AND c.severity IN ('HIGH', 'CRITICAL') AND contains(d.text, ' linux ') AND contains(d.text, ' kernel ')
       ORDER BY c.service_score DESC, c.cve_id DESC`,
    );
    const { body } = await search(normal, 'search=linux+kernel&severity=HIGH,CRITICAL&sort=severity&limit=200');
    expect(ids(body)).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  it('a CVE id finds its record', async () => {
    const { body } = await search(normal, 'search=CVE-2024-3400');
    expect(ids(body)[0]).toBe('CVE-2024-3400');
  });

  it('a one-word search is counted exactly from the term statistics, even without budget', async () => {
    const expected = await matching('linux');
    const { body } = await search(starved, 'search=linux&limit=2');
    expect(ids(body)).toEqual(expected.slice(0, 2));
    expect(body.total).toBe(expected.length);
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(false);
  });
});

describe('execution budget (rules 2, 4, 5, 6)', () => {
  it('a phrase that cannot finish in the budget runs as its conjunction: search_relaxed, rows and total of the conjunction', async () => {
    const conjunction = await matching('use', 'after', 'free');
    const { body } = await search(starved, 'search=use-after-free&limit=200');
    expect(body.search_relaxed).toBe(true);
    expect(ids(body)).toEqual(conjunction);
    // The page holds every match, so its total is exact.
    expect(body.total).toBe(conjunction.length);
    expect(body.total_counted).toBe(true);
    const wrongOrder = await search(starved, 'search=%22free+after+use%22&limit=200');
    expect(wrongOrder.body.search_relaxed).toBe(true);
    expect(ids(wrongOrder.body)).toEqual(conjunction);
  });

  it('a count past the budget becomes a proven floor from the rows in hand', async () => {
    const expected = await matching('linux', 'kernel');
    const { body } = await search(starved, 'search=linux+kernel&limit=3&offset=2');
    expect(ids(body)).toEqual(expected.slice(2, 5));
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(true);
    // offset + rows + the one row known to follow: at least that many match.
    expect(body.total).toBe(6);
    expect(body.total).toBeLessThanOrEqual(expected.length);
    expect(body.search_relaxed).toBe(false);
    expect(body).not.toHaveProperty('next_cve_id');
  });

  it('filters alone are budgeted too', async () => {
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status = 'active' AND severity = 'HIGH' ORDER BY published DESC, cve_id DESC`);
    const { body } = await search(starved, 'severity=HIGH&limit=2');
    expect(ids(body)).toEqual(expected.slice(0, 2));
    expect(body.total_is_lower_bound).toBe(true);
    expect(body.total).toBe(3);
    const counted = await search(normal, 'severity=HIGH&limit=2');
    expect(counted.body.total_is_lower_bound).toBe(false);
    expect(counted.body.total).toBe(expected.length);
  });

  it('when not even a floor fits the budget, total_counted is false, total 0, and no cursor is given', async () => {
    const { body } = await search(starved, 'search=linux+kernel&offset=150');
    expect(body.cves).toEqual([]);
    expect(body.total_counted).toBe(false);
    expect(body.total).toBe(0);
    expect(body.total_is_lower_bound).toBe(false);
    expect(body).not.toHaveProperty('next_published');
    expect(body).not.toHaveProperty('next_cve_id');
    // The same request with time to count knows the total.
    const counted = await search(normal, 'search=linux+kernel&offset=150');
    expect(counted.body.total_counted).toBe(true);
    expect(counted.body.total).toBe((await matching('linux', 'kernel')).length);
  });

  it('a page that ends before the limit proves its total without counting', async () => {
    const expected = await matching('linux', 'kernel');
    const { body } = await search(starved, 'search=linux+kernel&limit=200');
    expect(body.total).toBe(expected.length);
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(false);
  });

  it('skip_count is not the budget: the cursor is carried', async () => {
    const expected = await matching('linux', 'kernel');
    const { body } = await search(starved, 'search=linux+kernel&limit=3&skip_count=1');
    expect(body.total_counted).toBe(false);
    expect(body.next_cve_id).toBe(expected[2]);
  });

  it('the unfiltered listing is always counted exactly', async () => {
    const { body } = await search(starved, 'limit=1');
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(false);
    expect(body.total).toBeGreaterThan(50);
  });
});
