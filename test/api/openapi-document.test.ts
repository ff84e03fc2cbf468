/**
 * The OpenAPI document as a client reads it (issue 8 §2): what every operation declares (304,
 * 429, 400/503 where they happen, an operationId, no security), a walk of every operation whose
 * answers (200, 304, HEAD, 400, 404, 429, 503) are checked against the served document (the
 * harness checks every answer it receives), and parameter schemas that accept exactly what the
 * server accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRateLimitConfig } from '../../api/ratelimit/index.ts';
import { patternProblems, type OpenApiValidator } from '../helpers/openapi-validator.ts';
import { emptyDataDir, startOn, startSampleServer, type SampleServer } from './server-harness.ts';

interface Parameter {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  schema: Record<string, unknown> & { example?: unknown; pattern?: string };
  example?: unknown;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: Parameter[];
  security?: unknown;
  responses: Record<string, { $ref?: string; headers?: Record<string, { required?: boolean }>; content?: Record<string, { schema: unknown }> }>;
}

interface Document {
  openapi: string;
  info: { license?: { name: string; identifier?: string } };
  servers?: { url: string }[];
  security?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { headers?: Record<string, { required?: boolean }>; content?: Record<string, { schema: { $ref?: string } }> }> };
}

let s: SampleServer;
let doc: Document;
const operations: { path: string; op: Operation }[] = [];

beforeAll(async () => {
  s = await startSampleServer();
  doc = (await s.json<Document>('/api/v1/openapi.json')).body;
  for (const [path, item] of Object.entries(doc.paths)) for (const op of Object.values(item)) operations.push({ path, op });
});

afterAll(async () => {
  await s?.server.close();
});

function resolved(op: Operation, status: string) {
  const r = op.responses[status];
  if (!r) return undefined;
  return r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r;
}

/** A request URL for the operation: path parameters from `values`, required query ones from their example. */
function urlOf(path: string, op: Operation, values: Record<string, string>): string {
  let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? String(exampleOf(op, name))));
  const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(exampleOf(op, p.name)))}`);
  if (query.length) url += `?${query.join('&')}`;
  return url;
}

/**
 * An answer's headers but those of the connection and the moment (the date, keep-alive) and
 * the body's framing (a streamed GET is chunked; its HEAD has no body to frame).
 */
function comparableHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) out[name] = value;
  return out;
}

function exampleOf(op: Operation, name: string): unknown {
  const p = op.parameters?.find((x) => x.name === name);
  return p?.example ?? p?.schema.example;
}

/** What the served document finds wrong in CVE-2024-3400's record with `changed` members put in. */
function recordProblems(validator: OpenApiValidator, record: Record<string, unknown>, changed: Record<string, unknown>) {
  return validator.check({
    method: 'GET',
    url: `${s.base}/api/v1/public/cves/CVE-2024-3400`,
    status: 200,
    headers: new Headers({ 'Content-Type': 'application/json', ETag: '"x"', 'X-Snapshot': 'x', 'Cache-Control': 'x' }),
    body: JSON.stringify({ ...record, ...changed }),
  });
}

describe('the document', () => {
  it('covers at least the endpoints of the contract', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations.map(({ op }) => op.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states no security, the license and a server', () => {
    expect(doc.security).toEqual([]);
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('declares 304 (no body, ETag) and 429 (RateLimitError, Retry-After, X-RateLimit-*) on every operation; the event stream has no entity tag (no ETag, no 304)', () => {
    const stream = doc.paths['/pulse/stream']!.get!;
    expect(stream.responses['304']).toBeUndefined();
    expect(resolved(stream, '200')!.headers?.ETag).toBeUndefined();
    for (const { path, op } of operations) {
      if (op === stream) continue;
      const notModified = resolved(op, '304');
      expect(notModified, path).toBeDefined();
      expect(notModified!.content, path).toBeUndefined();
      expect(notModified!.headers?.ETag?.required, path).toBe(true);
      const limited = resolved(op, '429');
      expect(limited, path).toBeDefined();
      expect(limited!.content?.['application/json']?.schema, path).toEqual({ $ref: '#/components/schemas/RateLimitError' });
      for (const h of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window']) {
        expect(limited!.headers?.[h]?.required, `${path} ${h}`).toBe(true);
      }
    }
  });

  it('declares 503 on every public operation; 400, 408, 431 and 500 everywhere (the first three can come before any routing)', () => {
    for (const { path, op } of operations) {
      expect(resolved(op, '400'), path).toBeDefined();
      expect(resolved(op, '408'), path).toBeDefined();
      expect(resolved(op, '431'), path).toBeDefined();
      expect(resolved(op, '500'), path).toBeDefined();
      if (path.startsWith('/api/v1/public/')) expect(resolved(op, '503'), path).toBeDefined();
    }
    // An operation without parameters: its 400 is only the malformed request's.
    const summary = doc.paths['/api/v1/public/cves/summary']!.get!;
    expect(Object.keys(summary.responses)).toEqual(expect.arrayContaining(['200', '304', '400', '408', '429', '500', '503']));
    expect(JSON.stringify(summary.responses['400'])).toContain('MalformedRequest');
  });

  it('describes the CVE record as the contract does (2.1, 2.2): ranges, bands, the unassessed reason only when not assessed, the score_factors members', async () => {
    const validator = await s.validator();
    const record = (await s.json<Record<string, unknown>>('/api/v1/public/cves/CVE-2024-3400')).body;
    const problems = (changed: Record<string, unknown>) => recordProblems(validator, record, changed);
    expect(problems({})).toEqual([]);
    const factors = record.score_factors as Record<string, unknown>;
    const offContract: Record<string, unknown>[] = [
      { service_score: 10.5 },
      { service_score: -1 },
      { service_risk: 101 },
      { service_ssvc_decision: 'Defer' },
      { vendor_severity: 'IMPORTANT' },
      { severity: 'SEVERE' },
      // Present only when not assessed, and then always.
      { score_unassessed_reason: 'no_signal' },
      { score_assessed: false, service_score: 0 },
      { kev_added_date: 'last week' },
      { score_factors: { ...factors, svc_risk: undefined } },
      { score_factors: { ...factors, rule_triggered: 'cvss_v3' } },
      { score_factors: { ...factors, svc_risk: { ...(factors.svc_risk as object), summary: undefined } } },
    ];
    for (const changed of offContract) expect(problems(changed), JSON.stringify(changed).slice(0, 80)).not.toEqual([]);
    // And what the contract allows is allowed.
    expect(problems({ score_assessed: false, service_score: 0, score_unassessed_reason: 'rejected', service_ssvc_decision: 'Track*', vendor_severity: null })).toEqual([]);
  });

  it('declares every member a CVE record carries (docs/api.md), each of its type: a client generated from the document reads the whole record', async () => {
    const validator = await s.validator();
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    const declared = Object.keys(schemas.CveRecord!.properties);
    const page = (await s.json<{ cves: Record<string, unknown>[] }>('/api/v1/public/cves?status=all&limit=200')).body;
    const sent = new Set(page.cves.flatMap((record) => Object.keys(record)));
    expect([...sent].filter((member) => !declared.includes(member))).toEqual([]);
    const record = (await s.json<Record<string, unknown>>('/api/v1/public/cves/CVE-2024-3400')).body;
    const problems = (changed: Record<string, unknown>) => recordProblems(validator, record, changed);
    const offType: Record<string, unknown>[] = [
      { title: 5 },
      { cwe_ids: 'CWE-20' },
      { cwe_ids: null },
      { cve_tags: [1] },
      { ghsa_ids: null },
      { vendor_advisories: [{ vendor: 'cisco' }] },
      { exploit_count: -1 },
      { exploit_count: 1.5 },
      { svc_kev: null },
      { epss_date: 'yesterday' },
      { kev_due_date: 'soon' },
      { epss_percentile: 2 },
      { cvss_v4_severity: 'SEVERE' },
      { cvss_v3_source: 'vendor' },
      { state: null },
    ];
    for (const changed of offType) expect(problems(changed), JSON.stringify(changed)).not.toEqual([]);
  });

  it('declares the members of the summary\'s sources and of the trends\' severity distribution (docs/api.md)', async () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, { properties?: object; additionalProperties?: { properties?: object }; anyOf?: { properties?: object }[] }> }> } }).components.schemas;
    const summary = (await s.json<{ sources: Record<string, Record<string, unknown>> }>('/api/v1/public/cves/summary')).body;
    const sourceMembers = Object.keys(schemas.Summary!.properties.sources!.additionalProperties!.properties!);
    for (const [name, source] of Object.entries(summary.sources)) expect(Object.keys(source).filter((m) => !sourceMembers.includes(m)), name).toEqual([]);
    const trends = (await s.json<{ severity_distribution: Record<string, unknown> }>('/api/v1/public/cves/trends')).body;
    const distribution = schemas.Trends!.properties.severity_distribution!;
    const distributionMembers = Object.keys(distribution.properties ?? distribution.anyOf?.find((o) => o.properties)?.properties ?? {});
    expect(Object.keys(trends.severity_distribution).filter((m) => !distributionMembers.includes(m))).toEqual([]);
  });

  it('describes the related lists as the contract does (2.5): at most 10 entries each, each basis one its list can have', async () => {
    const validator = await s.validator();
    const url = `${s.base}/api/v1/public/cves/CVE-2024-3400/related`;
    const related = (await s.json<{ same_cwe: unknown[]; basis: Record<string, string> }>('/api/v1/public/cves/CVE-2024-3400/related')).body;
    expect(related.same_cwe.length).toBeGreaterThan(0);
    const problems = (changed: Record<string, unknown>) =>
      validator.check({
        method: 'GET',
        url,
        status: 200,
        headers: new Headers({ 'Content-Type': 'application/json', ETag: '"x"', 'X-Snapshot': 'x', 'Cache-Control': 'x' }),
        body: JSON.stringify({ ...related, ...changed }),
      });
    expect(problems({})).toEqual([]);
    expect(problems({ same_cwe: Array(11).fill(related.same_cwe[0]) })).not.toEqual([]);
    expect(problems({ basis: { ...related.basis, same_product: 'capped' } })).not.toEqual([]);
    expect(problems({ basis: { ...related.basis, same_vendor: 'no_specific_key' } })).not.toEqual([]);
    expect(problems({ same_cwe: Array(10).fill(related.same_cwe[0]), basis: { same_product: 'no_specific_key', same_vendor: 'capped', same_cwe: 'ok' } })).toEqual([]);
  });

  it('describes the list responses as the contract does (2.3): no total without a count, the cursor pair together, limit and offset as applied', async () => {
    const validator = await s.validator();
    for (const path of ['/api/v1/public/cves?skip_count=1&limit=2', '/api/v1/public/cves/match?vendor=linux&skip_count=1&limit=2']) {
      const page = (await s.json<Record<string, unknown>>(path)).body;
      expect(page.next_cve_id, path).toMatch(/^CVE-/);
      const problems = (changed: Record<string, unknown>) =>
        validator.check({
          method: 'GET',
          url: `${s.base}${path}`,
          status: 200,
          headers: new Headers({ 'Content-Type': 'application/json', ETag: '"x"', 'X-Snapshot': 'x', 'Cache-Control': 'x' }),
          body: JSON.stringify({ ...page, ...changed }),
        });
      expect(problems({}), path).toEqual([]);
      for (const changed of [{ total: 5 }, { next_cve_id: undefined }, { next_published: 'yesterday' }, { next_cve_id: 'GHSA-x' }, { limit: 0 }, { limit: 201 }, { offset: -1 }]) {
        expect(problems(changed), `${path} ${JSON.stringify(changed)}`).not.toEqual([]);
      }
      // Counted, the total is whatever was counted; without skip_count, no cursor at all.
      expect(problems({ total_counted: true, total: 5, next_published: undefined, next_cve_id: undefined }), path).toEqual([]);
      expect(problems({ next_published: null, next_cve_id: null }), path).toEqual([]);
    }
  });

  it('declares every member an error body carries (docs/api.md, Errors), each of its type', async () => {
    const validator = await s.validator();
    const vendor = await s.get('/api/v1/public/cves?vendor=linux');
    const method = await s.get('/api/v1/public/cves', { method: 'POST' });
    const answers = [
      { method: 'GET', url: `${s.base}/api/v1/public/cves?vendor=linux`, status: 400, body: (await vendor.json()) as Record<string, unknown> },
      // 405 is no operation's answer: the checker holds it to the Error schema.
      { method: 'POST', url: `${s.base}/api/v1/public/cves`, status: 405, body: (await method.json()) as Record<string, unknown> },
    ];
    const problems = (answer: (typeof answers)[number], changed: Record<string, unknown>) =>
      validator.check({
        method: answer.method,
        url: answer.url,
        status: answer.status,
        headers: new Headers({ 'Content-Type': 'application/json', 'X-Snapshot': 'x' }),
        body: JSON.stringify({ ...answer.body, ...changed }),
      });
    const [vendorAnswer, methodAnswer] = answers as [(typeof answers)[number], (typeof answers)[number]];
    expect(Object.keys(vendorAnswer.body)).toEqual(['code', 'message', 'parameter', 'see']);
    expect(Object.keys(methodAnswer.body)).toEqual(['code', 'message', 'method', 'allowed']);
    const declared = Object.keys((doc as unknown as { components: { schemas: { Error: { properties: object } } } }).components.schemas.Error.properties);
    expect(declared).toEqual(expect.arrayContaining(['code', 'message', 'parameter', 'see', 'method', 'allowed', 'reason', 'table']));
    expect(problems(vendorAnswer, {})).toEqual([]);
    expect(problems(methodAnswer, {})).toEqual([]);
    expect(problems(vendorAnswer, { see: 5 })).not.toEqual([]);
    expect(problems(methodAnswer, { allowed: 'GET, HEAD' })).not.toEqual([]);
    expect(problems(vendorAnswer, { table: ['cves'] })).not.toEqual([]);
    expect(problems(methodAnswer, { reason: null })).not.toEqual([]);
  });

  it('declares the members of the lookups\' refusals: supported (/packages), value (/cves/batch), each of its type', async () => {
    const validator = await s.validator();
    const declared = (doc as unknown as { components: { schemas: { Error: { properties: Record<string, unknown> } } } }).components.schemas.Error.properties;
    for (const [path, member] of [
      ['/api/v1/public/packages/foo/bar', 'supported'],
      ['/api/v1/public/packages?purl=pkg:nosuchtype/x', 'supported'],
      ['/api/v1/public/cves/batch?ids=CVE-2024-3400,nonsense', 'value'],
    ] as const) {
      const res = await s.get(path);
      expect(res.status, path).toBe(400);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body), path).toContain(member);
      // A typed client reads every member it is given: none undeclared.
      expect(Object.keys(body).filter((key) => !(key in declared)), path).toEqual([]);
      const check = (changed: Record<string, unknown>) =>
        validator.check({ method: 'GET', url: `${s.base}${path}`, status: 400, headers: new Headers({ 'Content-Type': 'application/json', 'X-Snapshot': 'x' }), body: JSON.stringify({ ...body, ...changed }) });
      expect(check({}), path).toEqual([]);
      expect(check({ [member]: 5 }), path).not.toEqual([]);
    }
  });

  it('writes every pattern as a JSON Schema pattern: ECMA-262 in Unicode mode, no flags', () => {
    expect(patternProblems(doc)).toEqual([]);
    // And the check finds both faults it names.
    expect(patternProblems({ a: { pattern: '^CWE-\\d+$/i' }, b: { pattern: '^x\\-y$' }, c: { pattern: '^x-y$' } })).toHaveLength(2);
  });
});

describe('every operation, answered and checked against the document', () => {
  // Values that exist in the sample snapshot, so that each operation answers 200.
  const SAMPLE: Record<string, string> = { id: 'CVE-2024-3400', vendor: 'redhat', advisory_id: 'RHSA-2026:9102' };

  // The service's own operations (health, the document, its page) answer whatever the snapshot
  // or the caller's budget: a load balancer and a client must always reach them.
  const isService = (op: Operation) => op.tags?.includes('Service') === true;
  // The event stream never ends: tests/api/changes-stream.test.ts reads it.
  const isStream = (op: Operation) => op.operationId === 'streamChanges';

  it('answers 200, then 304 to its ETag, then HEAD with the same headers', async () => {
    for (const { path, op } of operations.filter(({ op }) => !isStream(op))) {
      const url = urlOf(path, op, SAMPLE);
      const res = await s.get(url);
      expect(res.status, url).toBe(200);
      const etag = res.headers.get('etag');
      expect(etag, url).toBeTruthy();
      await res.body?.cancel();
      const again = await s.get(url, { headers: { 'If-None-Match': etag! } });
      expect(again.status, url).toBe(304);
      const head = await s.get(url, { method: 'HEAD' });
      expect(head.status, url).toBe(200);
      // HEAD is GET without the body: the same headers, Content-Length included (a client sizing
      // a download, or checking an ETag, with HEAD reads what GET would send).
      expect(comparableHeaders(head.headers), url).toEqual(comparableHeaders(res.headers));
    }
  });

  it('answers HEAD on the event stream with the headers of its GET', async () => {
    const url = `${s.base}/pulse/stream`;
    const abort = new AbortController();
    const res = await fetch(url, { signal: abort.signal });
    expect(res.status).toBe(200);
    const streamed = comparableHeaders(res.headers);
    abort.abort();
    const head = await s.get('/pulse/stream', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(comparableHeaders(head.headers)).toEqual(streamed);
  });

  it('answers 400 to a malformed parameter, 404 to an unknown record', async () => {
    for (const { path, op } of operations) {
      for (const p of op.parameters ?? []) {
        const bad = p.in === 'path' ? path.replace(`{${p.name}}`, '%01bad') : `${path}?${p.name}=${encodeURIComponent('\u0001bad')}`;
        const url = p.in === 'path' ? urlOf(bad, op, SAMPLE) : bad.replace(/\{(\w+)\}/g, (_m, n: string) => SAMPLE[n]!);
        const res = await s.get(url);
        // A free-text parameter may take the value; anything else refuses it.
        expect([200, 400], url).toContain(res.status);
        await res.body?.cancel();
      }
      // A package nobody reported is a 200 saying so (not affected, no advisories), not a 404.
      if (path.includes('{') && !path.includes('/packages/')) {
        const missing = urlOf(path, op, { id: 'CVE-1999-99999999', vendor: 'redhat', advisory_id: 'RHSA-0000:0000' });
        expect((await s.get(missing)).status, missing).toBe(404);
      }
    }
  });

  it('answers 429 once the caller is over its limit', async () => {
    const limited = await startOn(s.dataDir, s.buildId, {
      rateLimit: defaultRateLimitConfig({ perMinute: { cves: 1, standard: 1, other: 1, pulse: 1 } }),
    });
    try {
      for (const { path, op } of operations.filter(({ op }) => !isService(op))) {
        const url = urlOf(path, op, SAMPLE);
        let res = await limited.get(url);
        if (res.status !== 429) res = await limited.get(url);
        expect(res.status, url).toBe(429);
        expect(res.headers.get('retry-after'), url).toMatch(/^\d+$/);
      }
    } finally {
      await limited.server.close();
    }
  });

  it('answers 503 NO_SNAPSHOT everywhere before a snapshot is published', async () => {
    const empty = await startOn(await emptyDataDir(), 'none');
    try {
      for (const { path, op } of operations.filter(({ op }) => !isService(op))) {
        const res = await empty.get(urlOf(path, op, SAMPLE));
        expect(res.status, path).toBe(503);
        const body = (await res.json()) as { code: string; parameter?: string };
        expect(body.code, path).toBe('NO_SNAPSHOT');
        // About no parameter: a client fixing its request would look for one.
        expect(body.parameter, path).toBeUndefined();
      }
      for (const { path, op } of operations.filter(({ op }) => isService(op))) {
        const res = await empty.get(urlOf(path, op, SAMPLE));
        expect(res.status, path).toBe(200);
        await res.body?.cancel();
      }
    } finally {
      await empty.server.close();
    }
  });
});

describe('parameter schemas accept exactly what the server accepts', () => {
  /** Whether the document's schema of `name` on `path` allows the raw query value. */
  function schemaAllows(schema: Parameter['schema'], raw: string): boolean {
    if (schema.type === 'number' || schema.type === 'integer') {
      // A number as a client writes one (JSON grammar, exponent included); range from the schema.
      if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw)) return false;
      const value = Number(raw);
      if (schema.type === 'integer' && !Number.isInteger(value)) return false;
      return value >= (schema.minimum as number) && value <= (schema.maximum as number);
    }
    // `not: {}`: the schema no value satisfies.
    if (schema.not !== undefined && Object.keys(schema.not as object).length === 0) return false;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(raw)) return false;
    // An enum as a client writes its values in a query (`false` for the boolean false).
    if (schema.enum !== undefined && !(schema.enum as unknown[]).map(String).includes(raw)) return false;
    if (schema.maxLength !== undefined && [...raw].length > (schema.maxLength as number)) return false;
    return true;
  }

  async function agree(path: string, name: string, candidates: string[], extra = ''): Promise<void> {
    const op = doc.paths[path]!.get!;
    const schema = op.parameters!.find((p) => p.name === name)!.schema;
    for (const raw of candidates) {
      const url = `${path}?${name}=${encodeURIComponent(raw)}${extra}`;
      const res = await s.get(url);
      const body = (await res.json()) as { parameter?: string };
      const refused = res.status === 400 && body.parameter === name;
      expect(refused ? 'refused' : 'accepted', `${url} (schema allows: ${schemaAllows(schema, raw)})`).toBe(schemaAllows(schema, raw) ? 'accepted' : 'refused');
    }
  }

  it('min_cvss: every decimal from 0 to 10, exponents and long fractions included', async () => {
    await agree('/api/v1/public/cves', 'min_cvss', ['0', '9', '9.5', '10', '7.0000001', '1e-7', '1E1', '5e0', '0.000000000001', '10.0000001', '-1', '11', '1e2', 'abc', 'NaN', 'Infinity', '9,5']);
  });

  it('min_cvss=1e-7 filters like 0.0000001', async () => {
    const a = await s.json<{ total: number }>('/api/v1/public/cves?min_cvss=1e-7&status=all');
    const b = await s.json<{ total: number }>('/api/v1/public/cves?min_cvss=0.0000001&status=all');
    expect(a.status).toBe(200);
    expect(a.body.total).toBe(b.body.total);
  });

  it('before_cve_id: the declared pattern (any case, 4-19 digits)', async () => {
    const op = doc.paths['/api/v1/public/cves']!.get!;
    expect(op.parameters!.find((p) => p.name === 'before_cve_id')!.schema.pattern).toBeDefined();
    await agree('/api/v1/public/cves', 'before_cve_id', ['CVE-2024-3400', 'cve-2024-3400', 'CVE-2024-1234567890123456789', 'CVE-2024-12345678901234567890', 'CVE-24-3400', 'CVE-2024-340', 'GHSA-xxxx', ''], '&before_published=2030-01-01');
  });

  it('severity: any case, spaces around items, the pattern saying so', async () => {
    await agree('/api/v1/public/cves', 'severity', ['CRITICAL', 'critical', 'High,low', ' HIGH , Medium ', 'NONE', 'CRITICAL,', ',HIGH', 'HIGH,,LOW', 'SEVERE', '']);
  });

  it('vendor on /vendor-advisories: the pattern of the path form', async () => {
    const query = doc.paths['/api/v1/public/vendor-advisories']!.get!.parameters!.find((p) => p.name === 'vendor')!.schema.pattern;
    const pathForm = doc.paths['/api/v1/public/vendor-advisories/{vendor}/{advisory_id}']!.get!.parameters!.find((p) => p.name === 'vendor')!.schema.pattern;
    expect(query).toBeDefined();
    expect(query).toBe(pathForm);
    await agree('/api/v1/public/vendor-advisories', 'vendor', ['redhat', 'RedHat', 'siemens.com', 'a_b-c', 'a'.repeat(64), 'a'.repeat(65), '-cisco', 'red hat', '']);
  });

  it('the change feed\'s text filters: not blank, no control character, at most the declared length in characters, a search with a letter or digit; cwe by its pattern', async () => {
    for (const name of ['vendor', 'product', 'ecosystem', 'package', 'search']) {
      // A product is taken with its vendor only (a rule between parameters, in the product's description).
      const extra = name === 'product' ? '&vendor=cisco' : '';
      await agree('/api/v1/public/changes', name, ['cisco', ' cisco ', '', '   ', 'x'.repeat(200), 'x'.repeat(201), '🙂'.repeat(200), '🙂'.repeat(201), ` ${'x'.repeat(199)}`, 'a\u0001b', 'a\tb', 'a\u007f'], extra);
    }
    // A search holds a letter or digit, of any script.
    await agree('/api/v1/public/changes', 'search', ['***', ' !!! ', '🙂', 'é', '7', '-x-']);
    await agree('/api/v1/public/changes', 'cwe', ['CWE-79', 'cwe-79', ' CWE-79 ', 'CWE-123456', 'CWE-1234567', 'CWE-', '79', 'CWE79', '']);
  });

  it('/cves/match: vendor not blank, vendor and product at most 200 characters', async () => {
    await agree('/api/v1/public/cves/match', 'vendor', ['linux', 'Palo Alto Networks', '', '  ', '🙂'.repeat(200), '🙂'.repeat(201), 'x'.repeat(201)]);
    await agree('/api/v1/public/cves/match', 'product', ['linux_kernel', '', '  ', '🙂'.repeat(200), '🙂'.repeat(201)], '&vendor=linux');
  });

  it('reverse: both values on /cves, only false on /cves/match (where true is always refused)', async () => {
    await agree('/api/v1/public/cves', 'reverse', ['true', 'false']);
    const match = doc.paths['/api/v1/public/cves/match']!.get!.parameters!.find((p) => p.name === 'reverse')!.schema;
    expect(schemaAllows(match, 'false')).toBe(true);
    expect(schemaAllows(match, 'true')).toBe(false);
    expect((await s.get('/api/v1/public/cves/match?vendor=linux&reverse=false')).status).toBe(200);
    // Refused naming reverse, the parameter whose value the document does not allow (it named vendor).
    const refused = await s.json<{ code: string; parameter: string }>('/api/v1/public/cves/match?vendor=linux&reverse=true');
    expect([refused.status, refused.body.code, refused.body.parameter]).toEqual([400, 'REVERSE_NOT_ALLOWED', 'reverse']);
  });

  it('vendor on /cves: refused whatever its value, and the schema takes no value', async () => {
    const { status, body } = await s.json<{ code: string }>('/api/v1/public/cves?vendor=linux');
    expect([status, body.code]).toEqual([400, 'VENDOR_FILTER_NOT_ALLOWED']);
    await agree('/api/v1/public/cves', 'vendor', ['linux', '', 'x'.repeat(300)]);
  });

  it('the batches: ids by the declared pattern, purls not blank', async () => {
    await agree('/api/v1/public/cves/batch', 'ids', ['CVE-2024-3400', 'cve-2024-3400, CVE-2023-4966', ',CVE-2024-3400,,', ' CVE-2024-3400 ,', ' , ', '', 'CVE-2024-3400,x', 'x', 'CVE-2024-3400;CVE-2023-4966']);
    await agree('/api/v1/public/packages/batch', 'purls', ['pkg:npm/lodash@4.17.20', 'pkg:npm/a@1,pkg:npm/b@2', ',', 'x', '', '   ']);
  });

  it('/packages/{ecosystem}/{name}: the ecosystem by its pattern (a supported one, any case, optionally with a release), a name not blank', async () => {
    const path = '/api/v1/public/packages/{ecosystem}/{name}';
    const params = doc.paths[path]!.get!.parameters!;
    const cases: [name: 'ecosystem' | 'name', raw: string][] = [
      ...['PyPI', 'pypi', ' npm ', 'Debian:12', 'debian : 12', 'Red Hat', 'red hat:9', 'crates.io', 'Rocky Linux:8', 'Ubuntu:22.04:LTS', 'Alpine:', 'cratesXio', 'Pip', 'Debian12', 'nope', ':12', ' ', '🙂', 'npm;x'].map(
        (raw) => ['ecosystem', raw] as ['ecosystem', string],
      ),
      ...['mlflow', ' ', '\t'].map((raw) => ['name', raw] as ['name', string]),
    ];
    for (const [name, raw] of cases) {
      const values: Record<string, string> = { ecosystem: 'PyPI', name: 'mlflow', [name]: raw };
      const url = `/api/v1/public/packages/${encodeURIComponent(values.ecosystem!)}/${encodeURIComponent(values.name!)}`;
      const res = await s.get(url);
      const body = (await res.json()) as { parameter?: string };
      const refused = res.status === 400 && body.parameter === name;
      const allowed = schemaAllows(params.find((p) => p.name === name)!.schema, raw);
      expect(refused ? 'refused' : 'accepted', `${url} (schema allows: ${allowed})`).toBe(allowed ? 'accepted' : 'refused');
    }
  });

  it('/pulse/suggest: a field of the list, q and scope blank or text without control characters, at most 100 characters', async () => {
    await agree('/pulse/suggest', 'field', ['vendor', 'cwe', 'package', 'VENDOR', '', 'nope']);
    for (const name of ['q', 'scope']) {
      await agree('/pulse/suggest', name, ['', '   ', '\t', ' '.repeat(150), 'micro', 'x'.repeat(100), 'x'.repeat(101), '🙂'.repeat(100), '🙂'.repeat(101), 'a\u0001b', 'a\tb'], '&field=product');
    }
  });

  it('since: an RFC 3339 date-time with any number of fraction digits', async () => {
    const res = await s.get(`/api/v1/public/cves?since=${encodeURIComponent('2024-01-01T00:00:00.1234567890123+02:00')}`);
    expect(res.status).toBe(200);
  });

  it('search: at most the declared length, in characters', async () => {
    await agree('/api/v1/public/cves', 'search', ['kernel', 'é'.repeat(500), 'x'.repeat(500), 'x'.repeat(501), `kernel ${'🙂'.repeat(493)}`, `kernel ${'🙂'.repeat(494)}`]);
  });

  it('search on /cves and /cves/match: a letter or digit of any script, or blank (no search); nothing to look for is refused, and the pattern says so', async () => {
    const candidates = ['kernel', 'é', '中', '٣', '7', 'a-', '"', '""', '%', '-', '***', '🙂', '\u0301', '', '   ', '\u0000', 'a\u0000b'];
    await agree('/api/v1/public/cves', 'search', candidates);
    await agree('/api/v1/public/cves/match', 'search', candidates, '&vendor=linux');
  });
});
