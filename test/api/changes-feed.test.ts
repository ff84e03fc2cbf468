/**
 * The change feed (PULSE §3) on a real server over two consecutive builds of the sample corpus
 * with known differences (test/helpers/changes-corpus.ts): `/changes` (filters as
 * changeMatches defines them, since, keyset paging, errors, ETag), `/cves/{id}/history`, the
 * OpenAPI document, and the Atom feed parsed as XML against RFC 4287's structure.
 */
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangeFilter, type ChangeRow, changeMatches } from '../../lib/changes/model.ts';
import { renderAtom } from '../../api/routes/pulse-feeds.ts';
import type { ServingSnapshot } from '../../api/snapshot/serving.ts';
import { buildChangesCorpus, type ChangesCorpus } from '../helpers/changes-corpus.ts';
import { startOn, type SampleServer } from './server-harness.ts';

type ChangeJson = Omit<ChangeRow, 'before' | 'after'> & { before: Record<string, unknown> | null; after: Record<string, unknown> | null };
interface Page {
  snapshot: string;
  limit: number;
  changes: ChangeJson[];
  next_cursor: string | null;
}

/** A change as the model reads it (before/after back to JSON text) for changeMatches. */
function asRow(change: ChangeJson): ChangeRow {
  return { ...change, before: change.before && JSON.stringify(change.before), after: change.after && JSON.stringify(change.after) };
}

let corpus: ChangesCorpus;
let api: SampleServer;
let all: ChangeJson[];

beforeAll(async () => {
  corpus = await buildChangesCorpus();
  api = await startOn(corpus.dataDir, corpus.second.buildId);
  all = (await api.json<Page>('/api/v1/public/changes?limit=200')).body.changes;
}, 240_000);

afterAll(async () => {
  await api?.server.close();
});

describe('GET /api/v1/public/changes', () => {
  it('lists every change of the history, newest build first, then by change_id', () => {
    expect(all).toHaveLength(15);
    expect(all.every((c) => c.build_id === corpus.second.buildId)).toBe(true);
    const ids = all.map((c) => c.change_id);
    expect(ids).toEqual([...ids].sort());
    const kev = all.find((c) => c.kind === 'kev_added')!;
    expect(kev).toMatchObject({
      cve_id: 'CVE-2025-90308',
      before: { in_kev: false, service_risk: 41.3 },
      after: { in_kev: true, kev_added_date: '2026-11-23', service_risk: 85.8 },
      why: 'Added to CISA KEV on 2026-11-23: service risk 41.3 → 85.8.',
      in_kev: true,
    });
    expect(kev.detected_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('pages with the keyset cursor through every change once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/api/v1/public/changes?limit=4${cursor ? `&cursor=${cursor}` : ''}`;
      const { status, body }: { status: number; body: Page } = await api.json<Page>(path);
      expect(status).toBe(200);
      seen.push(...body.changes.map((c) => c.change_id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual(all.map((c) => c.change_id));
  });

  it('keeps only changes detected after `since`', async () => {
    const detected = all[0]!.detected_at;
    expect((await api.json<Page>(`/api/v1/public/changes?since=${detected}`)).body.changes).toEqual([]);
    const before = new Date(Date.parse(detected) - 1000).toISOString();
    expect((await api.json<Page>(`/api/v1/public/changes?since=${before}&limit=200`)).body.changes).toHaveLength(15);
  });

  const FILTERS: Array<[string, ChangeFilter]> = [
    ['kind=kev_added,epss_crossed', { kinds: ['kev_added', 'epss_crossed'] }],
    ['vendor=cisco', { vendor: 'cisco' }],
    ['vendor=Cisco&product=Adaptive%20Security%20Appliance%20Software', { vendor: 'Cisco', product: 'Adaptive Security Appliance Software' }],
    ['vendor=apache&product=syncope', { vendor: 'apache', product: 'syncope' }],
    ['cwe=cwe-416', { cwe: 'CWE-416' }],
    // Leading zeros of the number are no part of the id (it matched nothing).
    ['cwe=CWE-0416', { cwe: 'CWE-416' }],
    ['search=cisco%20reload', { search: 'cisco reload' }],
    ['search=KEV', { search: 'KEV' }],
    ['min_severity=critical', { min_severity: 'CRITICAL' }],
    ['min_severity=MEDIUM', { min_severity: 'MEDIUM' }],
    ['min_risk=60', { min_risk: 60 }],
    ['kev_only=true', { kev_only: true }],
    ['ecosystem=npm', { ecosystem: 'npm' }],
    ['package=widget', { package: 'widget' }],
    ['kind=new_advisory,advisory_linked&min_severity=HIGH', { kinds: ['new_advisory', 'advisory_linked'], min_severity: 'HIGH' }],
  ];

  it.each(FILTERS)('?%s answers exactly what changeMatches keeps', async (query, filter) => {
    const { status, body } = await api.json<Page>(`/api/v1/public/changes?limit=200&${query}`);
    expect(status).toBe(200);
    const expected = all.filter((c) => changeMatches(filter, asRow(c))).map((c) => c.change_id);
    expect(body.changes.map((c) => c.change_id)).toEqual(expected);
  });

  it('the filters are not vacuous on this corpus', () => {
    const counts = Object.fromEntries(FILTERS.map(([q, f]) => [q, all.filter((c) => changeMatches(f, asRow(c))).length]));
    expect(counts).toMatchObject({
      'kind=kev_added,epss_crossed': 2,
      'vendor=cisco': 3,
      'cwe=cwe-416': 4,
      'cwe=CWE-0416': 4,
      'kev_only=true': 4,
      'min_risk=60': 7,
      'kind=new_advisory,advisory_linked&min_severity=HIGH': 1,
    });
  });

  it.each([
    ['kind=bogus', 'kind'],
    ['min_risk=abc', 'min_risk'],
    ['min_risk=101', 'min_risk'],
    ['cwe=79', 'cwe'],
    ['since=yesterday', 'since'],
    ['cursor=zzz', 'cursor'],
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['kev_only=maybe', 'kev_only'],
    ['min_severity=NONE', 'min_severity'],
    ['vendor=', 'vendor'],
    ['vendor=a&vendor=b', 'vendor'],
    // No letter or digit: nothing to look for (it matched every change; /cves refuses it too).
    ['search=***', 'search'],
    ['search=%21%21%21', 'search'],
    // A product is matched within its vendor (as /pulse/cves and subscriptions take it).
    ['product=syncope', 'product'],
  ])('?%s is 400 INVALID_PARAMETER naming %s', async (query, parameter) => {
    const { status, body } = await api.json<{ code: string; parameter: string }>(`/api/v1/public/changes?${query}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
  });

  it('has CORS, X-Snapshot and an ETag honoured by If-None-Match', async () => {
    const res = await api.get('/api/v1/public/changes?vendor=cisco');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-snapshot')).toBe(corpus.second.buildId);
    const etag = res.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect((await api.get('/api/v1/public/changes?vendor=cisco', { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });
});

describe('GET /api/v1/public/cves/{id}/history', () => {
  it("lists the CVE's changes newest first", async () => {
    const { status, body } = await api.json<{ cve_id: string; changes: ChangeJson[] }>('/api/v1/public/cves/cve-2026-90141/history');
    expect(status).toBe(200);
    expect(body.cve_id).toBe('CVE-2026-90141');
    expect(body.changes.map((c) => c.kind).sort()).toEqual(['cvss_changed', 'risk_changed', 'score_changed', 'severity_changed']);
  });

  it('includes the advisory that came to name the CVE', async () => {
    const { body } = await api.json<{ changes: ChangeJson[] }>('/api/v1/public/cves/CVE-2026-90401/history');
    expect(body.changes.map((c) => `${c.subject_type}:${c.kind}`).sort()).toEqual(['advisory:advisory_linked', 'cve:new_cve']);
  });

  it('is empty for a CVE that did not change, 404 for an unknown one, 400 for a malformed id', async () => {
    expect((await api.json<{ changes: unknown[] }>('/api/v1/public/cves/CVE-2024-3400/history')).body.changes).toEqual([]);
    expect((await api.json('/api/v1/public/cves/CVE-2031-99999/history')).status).toBe(404);
    const bad = await api.json<{ parameter: string }>('/api/v1/public/cves/CVE-24/history');
    expect(bad.status).toBe(400);
    expect(bad.body.parameter).toBe('id');
  });
});

describe('OpenAPI document', () => {
  it('describes the change feed and the history', async () => {
    const { body } = await api.json<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>('/api/v1/openapi.json');
    const params = body.paths['/api/v1/public/changes']!.get!.parameters!.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['kind', 'vendor', 'product', 'ecosystem', 'package', 'cwe', 'search', 'min_severity', 'min_risk', 'kev_only', 'since', 'cursor', 'limit']));
    expect(body.paths['/api/v1/public/cves/{id}/history']).toBeDefined();
  });
});

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => ['entry', 'link', 'author'].includes(name) });

interface AtomEntry {
  id: string;
  title: { '#text': string; '@type': string } | string;
  updated: string;
  link: { '@href': string; '@rel'?: string }[];
  summary: { '#text': string; '@type': string };
}

function textOf(node: AtomEntry['title']): string {
  return typeof node === 'string' ? node : node['#text'];
}

describe('GET /pulse/feeds/changes.atom', () => {
  it('carries Last-Modified, the feed\'s updated, and answers If-Modified-Since with 304 when nothing is newer', async () => {
    const res = await api.get('/pulse/feeds/changes.atom?vendor=cisco');
    const lastModified = res.headers.get('last-modified')!;
    const updated = String((parser.parse(await res.text()) as { feed: { updated: string } }).feed.updated);
    expect(lastModified).toBe(new Date(updated).toUTCString());
    const at = Date.parse(lastModified);
    const since = (ms: number) => api.get('/pulse/feeds/changes.atom?vendor=cisco', { headers: { 'If-Modified-Since': new Date(ms).toUTCString() } });
    const same = await since(at);
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(same.headers.get('last-modified')).toBe(lastModified);
    expect(await same.text()).toBe('');
    expect((await since(at + 60_000)).status).toBe(304);
    // Older than the feed: the whole feed.
    const older = await since(at - 1000);
    expect(older.status).toBe(200);
    expect(await older.text()).toContain('<feed');
    // A date that does not parse is ignored; If-None-Match takes precedence over it.
    expect((await api.get('/pulse/feeds/changes.atom?vendor=cisco', { headers: { 'If-Modified-Since': 'yesterday-ish' } })).status).toBe(200);
    const mismatched = await api.get('/pulse/feeds/changes.atom?vendor=cisco', { headers: { 'If-Modified-Since': lastModified, 'If-None-Match': '"other"' } });
    expect(mismatched.status).toBe(200);
  });

  it('is a valid Atom 1.0 feed with one entry per matching change, each linking to its /pulse page', async () => {
    const res = await api.get('/pulse/feeds/changes.atom?vendor=cisco');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('etag')).toBeTruthy();
    const xml = await res.text();
    const doc = parser.parse(xml) as { feed: Record<string, any> };
    const feed = doc.feed;
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe(`${api.base}/pulse/feeds/changes.atom?vendor=cisco`);
    expect(feed.title).toBeTruthy();
    expect(Date.parse(feed.updated)).toBe(Date.parse(all[0]!.detected_at));
    expect(feed.author[0].name).toBe('vulnintel');
    expect(feed.link.find((l: { '@rel': string }) => l['@rel'] === 'self')['@href']).toBe(feed.id);
    const cisco = all.filter((c) => changeMatches({ vendor: 'cisco' }, asRow(c)));
    const entries = feed.entry as AtomEntry[];
    expect(entries.map((e) => e.id)).toEqual(cisco.map((c) => `urn:vulnintel:change:${c.change_id}`));
    for (const [i, entry] of entries.entries()) {
      const change = cisco[i]!;
      expect(Date.parse(entry.updated)).toBe(Date.parse(change.detected_at));
      expect(entry.summary['#text']).toContain(change.why);
      expect(textOf(entry.title)).toMatch(/^(CVE-\d{4}-\d+|cisco \S+): /);
      const href = entry.link[0]!['@href'];
      expect(href).toBe(
        change.subject_type === 'cve'
          ? `${api.base}/pulse/cves/${change.cve_id}`
          : `${api.base}/pulse/advisories/cisco/${encodeURIComponent(change.advisory_id!)}`,
      );
    }
    expect(entries.some((e) => e.link[0]!['@href'].includes('/pulse/advisories/cisco/cisco-sa-ios-cdp-dos-Pq3v9Ks'))).toBe(true);
  });

  it('takes the same filters and refuses a malformed one with 400 naming it', async () => {
    const xml = await (await api.get('/pulse/feeds/changes.atom?kev_only=1')).text();
    expect((parser.parse(xml).feed.entry as AtomEntry[]).length).toBe(4);
    const bad = await api.json<{ code: string; parameter: string }>('/pulse/feeds/changes.atom?min_severity=urgent');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'min_severity' });
    const nothing = await api.json<{ code: string; parameter: string; message: string }>('/pulse/feeds/changes.atom?search=***');
    expect(nothing.status).toBe(400);
    expect(nothing.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'search', message: 'search: holds no letter or digit to look for' });
    const product = await api.json<{ code: string; parameter: string; message: string }>('/pulse/feeds/changes.atom?product=windows');
    expect(product.status).toBe(400);
    expect(product.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'product', message: 'product: name a vendor too (a product is matched within its vendor)' });
  });

  it('refuses a filter given twice, naming it, and ignores an unknown parameter even given twice, whatever its name (toString, constructor, __proto__ were refused as "given more than once")', async () => {
    const twice = await api.json<{ code: string; parameter: string }>('/pulse/feeds/changes.atom?vendor=cisco&vendor=juniper');
    expect([twice.status, twice.body.parameter]).toEqual([400, 'vendor']);
    for (const name of ['foo', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      for (const path of ['/pulse/feeds/changes.atom', '/pulse/stream']) {
        // HEAD: the stream answers its headers without staying open.
        const res = await api.get(`${path}?${name}=1&${name}=2`, { method: path === '/pulse/stream' ? 'HEAD' : 'GET' });
        expect([path, name, res.status]).toEqual([path, name, 200]);
        await res.body?.cancel();
      }
    }
  });

  it("names itself one way whatever the spelling; pages on with rel=next, losing no change (50 entries cut a build's changes)", async () => {
    const feedOf = async (path: string) => parser.parse(await (await api.get(path)).text()).feed as Record<string, any>;
    const canonical = `${api.base}/pulse/feeds/changes.atom?kev_only=true`;
    for (const path of ['/pulse/feeds/changes.atom?kev_only=1', '/pulse/feeds/changes.atom?kev_only=true&limit=2']) expect((await feedOf(path)).id, path).toBe(canonical);
    // Kinds are a set: in any order, one feed (it was a feed per order).
    for (const path of ['/pulse/feeds/changes.atom?kind=new_cve,kev_added', '/pulse/feeds/changes.atom?kind=KEV_ADDED,new_cve']) {
      expect((await feedOf(path)).id, path).toBe(`${api.base}/pulse/feeds/changes.atom?kind=kev_added%2Cnew_cve`);
    }
    // The href as an XML reader reads it (character references decoded).
    const link = (feed: Record<string, any>, rel: string) =>
      (feed.link as { '@rel': string; '@href': string }[]).find((l) => l['@rel'] === rel)?.['@href'].replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replaceAll('&amp;', '&');
    // Two entries a page, following `next` to the end: every change, once, in the feed's order.
    const seen: string[] = [];
    let path: string | undefined = '/pulse/feeds/changes.atom?limit=2';
    for (let pages = 0; path !== undefined && pages < 200; pages++) {
      const feed = await feedOf(path);
      expect(feed.id).toBe(`${api.base}/pulse/feeds/changes.atom`);
      seen.push(...((feed.entry ?? []) as AtomEntry[]).map((e) => e.id));
      const next = link(feed, 'next');
      path = next === undefined ? undefined : next.slice(api.base.length);
    }
    expect(seen).toEqual(all.map((c) => `urn:vulnintel:change:${c.change_id}`));
  });

  it('names its filter in its title, escaped (every filtered feed had one title)', async () => {
    const feed = parser.parse(await (await api.get('/pulse/feeds/changes.atom?vendor=cisco&search=%3Cb%3Eoverflow')).text()).feed as Record<string, any>;
    expect(String(feed.title)).toBe('vulnintel: what changed (search <b>overflow, vendor cisco)');
    expect(String(parser.parse(await (await api.get('/pulse/feeds/changes.atom')).text()).feed.title)).toBe('vulnintel: what changed');
  });

  it('shows the filter in its title exactly as given, entity-like text included (a&amp;b was titled a&b)', async () => {
    // The title as an XML reader reads it (fast-xml-parser decodes the predefined entities).
    const titleOf = async (query: string) => String((parser.parse(await (await api.get(`/pulse/feeds/changes.atom?${query}`)).text()).feed as Record<string, any>).title);
    expect(await titleOf('vendor=a%26amp%3Bb')).toBe('vulnintel: what changed (vendor a&amp;b)');
    expect(await titleOf('vendor=a%26b&search=%26lt%3Bx%26gt%3B')).toBe('vulnintel: what changed (search &lt;x&gt;, vendor a&b)');
    expect(await titleOf('vendor=x%26%2338%3By')).toBe('vulnintel: what changed (vendor x&#38;y)');
  });

  it('links to --public-url when one is given, not to the address asked', async () => {
    const behindProxy = await startOn(corpus.dataDir, corpus.second.buildId, { pulse: { publicUrl: 'https://vuln.example.org/' } });
    try {
      const feed = parser.parse(await (await behindProxy.get('/pulse/feeds/changes.atom?limit=1')).text()).feed as Record<string, any>;
      expect(feed.id).toBe('https://vuln.example.org/pulse/feeds/changes.atom');
      for (const l of feed.link as { '@href': string }[]) expect(l['@href']).toMatch(/^https:\/\/vuln\.example\.org\/pulse/);
      expect((feed.entry as AtomEntry[])[0]!.link[0]!['@href']).toMatch(/^https:\/\/vuln\.example\.org\/pulse\//);
    } finally {
      await behindProxy.server.close();
    }
  });

  it('escapes upstream text: markup and CDATA terminators arrive as text', () => {
    const evil: ChangeRow = {
      ...asRow(all[0]!),
      change_id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      kind: 'new_advisory',
      subject_type: 'advisory',
      vendor: 'acme & co',
      advisory_id: 'ACME/2026:1',
      why: 'New advisory <script>alert(1)</script> ]]> & more.',
      title: '<img src=x onerror=alert(1)>',
    };
    const xml = renderAtom([evil], { id: 'http://h/pulse/feeds/changes.atom?a=1&b=2', selfUrl: 'http://h/pulse/feeds/changes.atom?a=1&b=2', nextUrl: null, origin: 'http://h', snapshot: { manifest: { built_at: '2026-11-23T00:00:00Z' } } as ServingSnapshot });
    const entry = (parser.parse(xml).feed.entry as AtomEntry[])[0]!;
    // type="html": the reader decodes entities once and shows the text, never runs markup.
    expect(entry.summary['#text']).not.toContain('<script>');
    expect(entry.summary['#text']).toContain('&#60;script&#62;');
    expect(entry.summary['#text']).toContain(']]&#62;');
    expect(entry.link[0]!['@href']).toBe('http://h/pulse/advisories/acme%20%26%20co/ACME%2F2026%3A1');
    expect(textOf(entry.title)).toBe('acme &#38; co ACME/2026:1: new vendor advisory');
  });

  it('drops the bidirectional controls of upstream text and of the filter in its title (a reader showed them reordered)', () => {
    const bidi: ChangeRow = {
      ...asRow(all[0]!),
      change_id: 'cccccccccccccccccccccccc',
      kind: 'new_advisory',
      subject_type: 'advisory',
      vendor: 'acme\u202e',
      advisory_id: 'ACME-\u20661',
      why: 'Fixed in \u202e3.2.1\u202c, see the advisory.',
      title: 'Overflow \u2067in\u2069 parser',
    };
    const id = 'http://h/pulse/feeds/changes.atom?search=evil%E2%80%AEfdp.exe';
    const xml = renderAtom([bidi], { id, selfUrl: id, nextUrl: null, origin: 'http://h', snapshot: { manifest: { built_at: '2026-11-23T00:00:00Z' } } as ServingSnapshot });
    expect(xml).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    const feed = parser.parse(xml).feed as Record<string, any>;
    expect(String(feed.title)).toBe('vulnintel: what changed (search evilfdp.exe)');
    const entry = (feed.entry as AtomEntry[])[0]!;
    expect(textOf(entry.title)).toBe('acme ACME-1: new vendor advisory');
    expect(entry.summary['#text']).toBe('Fixed in 3.2.1, see the advisory. Overflow in parser');
  });

  it('an entry whose why already quotes the subject\'s title says it once (a new advisory\'s summary said its title twice)', async () => {
    const xml = await (await api.get('/pulse/feeds/changes.atom?kind=new_advisory')).text();
    const entries = (parser.parse(xml).feed.entry as AtomEntry[]) ?? [];
    const advisories = all.filter((c) => c.kind === 'new_advisory');
    expect(entries.length).toBe(advisories.length);
    expect(advisories.length).toBeGreaterThan(0);
    for (const [i, entry] of entries.entries()) {
      const change = advisories[i]!;
      expect(change.title && change.why.includes(change.title), change.change_id).toBeTruthy();
      expect(entry.summary['#text']).toBe(change.why);
    }
  });

  it('holds only characters XML allows, whatever the upstream text holds (one NUL made the feed unreadable)', () => {
    const raw: ChangeRow = {
      ...asRow(all[0]!),
      change_id: 'bbbbbbbbbbbbbbbbbbbbbbbb',
      why: 'Published\u0000 today\u0001\u000b\u000c\u001b[31m, tab\there.',
      title: 'Over\uFFFEflow \uD800 in parser\uFFFF \uD83D\uDE00',
    };
    const xml = renderAtom([raw], { id: 'http://h/pulse/feeds/changes.atom', selfUrl: 'http://h/pulse/feeds/changes.atom', nextUrl: null, origin: 'http://h', snapshot: { manifest: { built_at: '2026-11-23T00:00:00Z' } } as ServingSnapshot });
    // XML 1.0 §2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
    const allowed = (cp: number) => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
    expect([...xml].filter((ch) => !allowed(ch.codePointAt(0)!)).map((ch) => ch.codePointAt(0)!.toString(16))).toEqual([]);
    const summary = (parser.parse(xml).feed.entry as AtomEntry[])[0]!.summary['#text'];
    // What remains reads as before: the text around them, the tab, a pair of surrogates (an emoji).
    expect(summary).toBe('Published today[31m, tab\there. Overflow \uFFFD in parser \uD83D\uDE00');
  });
});
