import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import { cweParser, parseCweJson, parseCweXml } from '../../cli/parse/cwe.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/cwe/', import.meta.url));
const XML = join(DIR, 'cwec_v4.18.xml');
const noProgress = { tick() {}, setTotal() {}, stop() {} };

const json = (name: string) => JSON.parse(readFileSync(join(DIR, name), 'utf8'));

describe('CWE XML catalog', () => {
  it('reads weaknesses, categories and views with their kind and text', () => {
    const rows = parseCweXml(readFileSync(XML, 'utf8'), XML);
    expect(rows.map((r) => [r.cwe_id, r.kind])).toEqual([
      ['CWE-79', 'weakness'],
      ['CWE-787', 'weakness'],
      ['CWE-1187', 'weakness'],
      ['CWE-89', 'weakness'],
      ['CWE-1035', 'category'],
      ['CWE-1000', 'view'],
    ]);
    expect(rows[0]).toEqual({
      cwe_id: 'CWE-79',
      name: "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')",
      kind: 'weakness',
      abstraction: 'Base',
      status: 'Stable',
      description: 'The product does not neutralize or incorrectly neutralizes user-controllable input before it is placed in output that is used as a web page that is served to other users.',
    });
    expect(rows[3]!.description).toMatch(/can include "quotes" & comment markers\.$/);
    expect(rows[4]).toMatchObject({ name: 'OWASP Top Ten 2017 Category A9 - Using Components with Known Vulnerabilities', abstraction: null, description: 'Weaknesses in this category are related to the A9 category in the OWASP Top Ten 2017.' });
    // The view's own Objective, not a stakeholder's Description.
    expect(rows[5]).toMatchObject({ name: 'Research Concepts', status: 'Draft', description: expect.stringMatching(/^This view is intended to facilitate research/) });
  });

  it('keeps a deprecated weakness with its status', () => {
    const rows = parseCweXml(readFileSync(XML, 'utf8'), XML);
    expect(rows.find((r) => r.cwe_id === 'CWE-1187')).toMatchObject({ name: 'DEPRECATED: Use of Uninitialized Resource', status: 'Deprecated' });
  });

  it('matches elements by local name under the older cwe-6 namespace and a prefix', () => {
    const xml = '<?xml version="1.0"?><cwe:Weakness_Catalog xmlns:cwe="http://cwe.mitre.org/cwe-6" Version="4.10"><cwe:Weaknesses><cwe:Weakness ID="20" Name="Improper Input Validation" Abstraction="Class" Status="Stable"><cwe:Description>Input is not validated.</cwe:Description></cwe:Weakness></cwe:Weaknesses></cwe:Weakness_Catalog>';
    expect(parseCweXml(xml, 'cwec_v4.10.xml')).toEqual([
      { cwe_id: 'CWE-20', name: 'Improper Input Validation', kind: 'weakness', abstraction: 'Class', status: 'Stable', description: 'Input is not validated.' },
    ]);
  });

  it('rejects an entry without ID, a file that is not a catalog, and broken XML', () => {
    const noId = '<Weakness_Catalog><Weaknesses><Weakness Name="x"/></Weaknesses></Weakness_Catalog>';
    expect(() => parseCweXml(noId, 'cwec.xml')).toThrow(/cwec\.xml: record Weakness #1: CWE weakness needs a numeric ID and a Name/);
    expect(() => parseCweXml('<Other/>', 'cwec.xml')).toThrow(/cwec\.xml: not a CWE catalog/);
    expect(() => parseCweXml('<Weakness_Catalog><Weaknesses>', 'cwec.xml')).toThrow(RawFormatError);
    // A truncated download must not pass as a shorter catalog.
    const truncated = readFileSync(XML, 'utf8').slice(0, 3000);
    expect(() => parseCweXml(truncated, XML)).toThrow(/cwec_v4\.18\.xml: record line \d+: malformed XML/);
  });

  it('a truncated catalog is reported where its text breaks off, with what is left open (it said "line 1")', () => {
    const text = readFileSync(XML, 'utf8');
    const cut = text.slice(0, text.indexOf('</Description>'));
    const lines = cut.split('\n').length;
    expect(lines).toBeGreaterThan(1);
    expect(() => parseCweXml(cut, XML)).toThrow(
      new RegExp(`cwec_v4\\.18\\.xml: record line ${lines}: malformed XML: the text ends with <Weakness_Catalog> > <Weaknesses> > <Weakness> > <Description> still open \\(a truncated file\\?\\)$`),
    );
    // A mismatched tag is still reported where the validator finds it.
    expect(() => parseCweXml('<Weakness_Catalog>\n<Weaknesses>\n</Weakness_Catalog>', 'cwec.xml')).toThrow(/cwec\.xml: record line 3: malformed XML \(Expected closing tag 'Weaknesses'/);
  });
});

describe('CWE REST JSON records', () => {
  it('reads a weakness, a deprecated weakness and a category; skips the version record', () => {
    expect(parseCweJson(json('mitre-cwe-rest-json-W-1004.json'), 'W/1004.json')).toEqual([
      expect.objectContaining({ cwe_id: 'CWE-1004', kind: 'weakness', name: "Sensitive Cookie Without 'HttpOnly' Flag", abstraction: 'Variant', status: 'Incomplete' }),
    ]);
    expect(parseCweJson(json('mitre-cwe-rest-json-W-1187-deprecated.json'), 'W/1187.json')[0]).toMatchObject({ cwe_id: 'CWE-1187', status: 'Deprecated' });
    expect(parseCweJson(json('mitre-cwe-rest-json-C-1035-category.json'), 'C/1035.json')[0]).toMatchObject({
      cwe_id: 'CWE-1035',
      kind: 'category',
      abstraction: null,
      description: 'Weaknesses in this category are related to the A9 category in the OWASP Top Ten 2017.',
    });
    expect(parseCweJson(json('mitre-cwe-rest-json-cwev.json'), 'cwev.json')).toEqual([]);
  });

  it('reads REST API wrappers and rejects records of no known kind', () => {
    const wrapped = { Views: [{ ID: '1000', Name: 'Research Concepts', Type: 'Graph', Status: 'Draft', Objective: 'Research.' }] };
    expect(parseCweJson(wrapped, 'v.json')).toEqual([{ cwe_id: 'CWE-1000', name: 'Research Concepts', kind: 'view', abstraction: null, status: 'Draft', description: 'Research.' }]);
    expect(() => parseCweJson({ ID: '5', Name: 'x' }, 'x.json')).toThrow(/x\.json: record 5: not a CWE weakness, category or view record/);
  });

  it('names a REST record without a usable ID by its Name (the message said "record record")', () => {
    const record = json('mitre-cwe-rest-json-W-1004.json');
    expect(() => parseCweJson({ ...record, ID: 'HttpOnly' }, 'W/1004.json')).toThrow(
      /^W\/1004\.json: record Sensitive Cookie Without 'HttpOnly' Flag: CWE weakness needs a numeric ID and a Name$/,
    );
    expect(() => parseCweJson({ ...record, ID: null, Name: null }, 'W/1004.json')).toThrow(/^W\/1004\.json: CWE weakness needs a numeric ID and a Name$/);
  });
});

describe('cweParser.stage', () => {
  it('stages the XML catalog and the REST records of the folder', async () => {
    const sink = new MemoryStageSink();
    expect(await cweParser.stage(DIR, sink, noProgress)).toEqual({ files: 5, records: 9 });
    expect(sink.rows.cwe.filter((r) => r.cwe_id === 'CWE-1187')).toHaveLength(2);
  });

  it('reads a zipped catalog', async () => {
    const { zipSync, strToU8 } = await import('fflate');
    const dir = mkdtempSync(join(tmpdir(), 'cwe-'));
    try {
      writeFileSync(join(dir, 'cwec_latest.xml.zip'), zipSync({ 'cwec_v4.18.xml': strToU8(readFileSync(XML, 'utf8')) }));
      const sink = new MemoryStageSink();
      expect(await cweParser.stage(dir, sink, noProgress)).toEqual({ files: 1, records: 6 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
