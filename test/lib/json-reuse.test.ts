import { describe, expect, it } from 'vitest';
import { extendsKept, keepJson, jsonBytesReusing } from '../../lib/json-reuse.ts';

describe('jsonBytesReusing', () => {
  const kept = keepJson(Object.freeze({ id: 'CVE-1', score: 9.8, note: 'a "quoted" <b>text</b>\u2028', list: [1, null] }));
  const values: unknown[] = [
    null, 0, -0.5, 'x', true, [], {},
    { a: undefined, b: () => 1, c: [undefined, () => 2, kept], d: { e: { f: { g: { h: [kept] } } } } },
    { requested: 2, results: [{ purl: 'pkg:pypi/x', undetermined: [kept, kept, { ...kept }] }, { purl: 'p', error: { code: 'X', message: 'é\n' } }] },
    [kept, [kept, [kept, [kept, [kept]]]]],
  ];
  it.each(values.map((v) => [JSON.stringify(v)?.slice(0, 40), v]))('writes exactly what JSON.stringify writes: %s', (_label, value) => {
    expect(jsonBytesReusing(value).toString()).toBe(JSON.stringify(value));
    expect(jsonBytesReusing(value, 1).toString()).toBe(JSON.stringify(value));
  });
  it('reuses the text it kept (a kept object is written as first seen)', () => {
    const text = jsonBytesReusing([kept]).toString();
    expect(text).toBe(`[${JSON.stringify(kept)}]`);
    expect(jsonBytesReusing({ x: kept }).toString()).toBe(`{"x":${JSON.stringify(kept)}}`);
    expect(jsonBytesReusing(kept)).toBe(jsonBytesReusing(kept));
  });
  it('writes an object extending a kept one as JSON.stringify does, its head from the kept bytes', () => {
    const base = keepJson(Object.freeze({ cve_id: 'CVE-2', advisory_ids: ['GHSA-x'], note: 'é "q"' }));
    const value = extendsKept({ ...base, matched: [{ why: 'a\nb' }, kept], fixed_in: null, skipped: undefined }, base);
    expect(jsonBytesReusing(value).toString()).toBe(JSON.stringify(value));
    expect(jsonBytesReusing({ results: [value, value] }).toString()).toBe(JSON.stringify({ results: [value, value] }));
    const empty = keepJson(Object.freeze({}));
    const onlyMore = extendsKept({ ...empty, a: 1, b: 'x' }, empty);
    expect(jsonBytesReusing(onlyMore).toString()).toBe('{"a":1,"b":"x"}');
    const hollow = keepJson(Object.freeze({ gone: undefined }));
    const afterHollow = extendsKept({ ...hollow, a: 1 }, hollow);
    expect(jsonBytesReusing(afterHollow).toString()).toBe(JSON.stringify(afterHollow));
    expect(jsonBytesReusing(extendsKept({ ...base }, base)).toString()).toBe(JSON.stringify(base));
    expect(() => extendsKept({ a: 1 }, { a: 1 })).toThrow(/kept/);
  });
  it('keeps only frozen objects', () => {
    expect(() => keepJson({ a: 1 })).toThrow(/frozen/);
  });
});
