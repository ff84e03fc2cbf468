/**
 * The splice of a stored related answer (api/snapshot/related-splice.ts): each `\x02<doc>\x03`
 * of the template becomes that doc's brief; a template without markers is the body itself; a
 * damaged marker or a marker naming a CVE without a brief is an error, never a wrong body.
 */
import { describe, expect, it } from 'vitest';
import { spliceRelated, type BriefSource } from '../../api/snapshot/related-splice.ts';

function source(briefs: Record<number, string>): BriefSource {
  const bytes = new Map(Object.entries(briefs).map(([doc, text]) => [Number(doc), Buffer.from(text)]));
  return {
    lengthOf: (doc) => bytes.get(doc)?.length ?? 0,
    copyLine: (doc, out, at) => void bytes.get(doc)!.copy(out, at),
  };
}

const briefs = source({ 0: '', 7: '{"cve_id":"CVE-2024-0007","description":"é 漢 🦆"', 123456: '{"cve_id":"CVE-2024-9","description":null' });

describe('spliceRelated', () => {
  it('puts each sibling\'s brief in place of its marker, multi-byte text included', () => {
    const template = Buffer.from('{"cve_id":"CVE-1","same_product":[\u00027\u0003,"shared_count":1},\u0002123456\u0003,"shared_count":2}],"same_cwe":[\u00027\u0003,"days_apart":null}]}');
    const body = spliceRelated(template, briefs).toString('utf8');
    expect(body).toBe(
      '{"cve_id":"CVE-1","same_product":[{"cve_id":"CVE-2024-0007","description":"é 漢 🦆","shared_count":1},{"cve_id":"CVE-2024-9","description":null,"shared_count":2}],"same_cwe":[{"cve_id":"CVE-2024-0007","description":"é 漢 🦆","days_apart":null}]}',
    );
    expect(JSON.parse(body).same_product[1].shared_count).toBe(2);
  });

  it('returns a template without markers as it is', () => {
    const template = Buffer.from('{"cve_id":"CVE-1","same_product":[],"same_vendor":[],"same_cwe":[]}');
    expect(spliceRelated(template, briefs)).toBe(template);
  });

  it('refuses a marker naming a CVE without a brief, or cut short, or holding a non-digit', () => {
    expect(() => spliceRelated(Buffer.from('[\u00020\u0003}]'), briefs)).toThrow(/doc 0, which has no brief/);
    expect(() => spliceRelated(Buffer.from('[\u000299\u0003}]'), briefs)).toThrow(/doc 99/);
    expect(() => spliceRelated(Buffer.from('[\u000212'), briefs)).toThrow(/damaged/);
    expect(() => spliceRelated(Buffer.from('[\u00021x2\u0003}]'), briefs)).toThrow(/damaged/);
  });
});
