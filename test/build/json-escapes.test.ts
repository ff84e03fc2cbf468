/**
 * The escape fix of the stored answers (cli/build/json-escapes.ts): DuckDB's to_json and
 * JSON.stringify write every character of Unicode alike but for the case of a `\u` escape's hex
 * digits, so lower-casing those gives JSON.stringify's bytes; and fixing the pieces of a related
 * body (template, briefs) apart gives the fix of the whole.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowercaseUnicodeEscapes } from '../../cli/build/json-escapes.ts';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  connection = await instance.connect();
});
afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

async function toJson(text: string): Promise<string> {
  const rows = (await connection.runAndReadAll(`SELECT to_json($1::VARCHAR)::VARCHAR`, [text])).getRows();
  return rows[0]![0] as string;
}

describe('DuckDB to_json against JSON.stringify', () => {
  it('writes every code point alike once escapes are lower-cased', async () => {
    // The code points to_json does not write as themselves between quotes, with its text; every
    // other one it writes as itself (UTF-8 strings hold no lone surrogate).
    const rows = (
      await connection.runAndReadAll(
        `SELECT i, j FROM (SELECT i, to_json(chr(CAST(i AS INTEGER)))::VARCHAR AS j FROM range(0, 1114112) t(i) WHERE i < 55296 OR i > 57343)
         WHERE j <> '"' || chr(CAST(i AS INTEGER)) || '"'`,
      )
    ).getRows() as [bigint, string][];
    const duckdb = new Map(rows.map(([i, j]) => [Number(i), j]));
    let differing = 0;
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      const want = JSON.stringify(char);
      const written = duckdb.get(cp) ?? `"${char}"`;
      if (lowercaseUnicodeEscapes(written) !== want) differing++;
    }
    expect(differing).toBe(0);
    // The control characters, `"` and `\`: the ones either writer escapes.
    expect([...duckdb.keys()].sort((a, b) => a - b)).toEqual([...Array.from({ length: 32 }, (_, i) => i), 34, 92]);
    // Upper-case hex is what needed the fix.
    expect(duckdb.get(0x1f)).toBe('"\\u001F"');
  }, 60_000);

  it('writes a text as the run of its characters: whole texts come out alike too', async () => {
    const texts = [
      'tab\there, bell \u0007, \u000b\u001f\u007f, "quotes" \\ back\\u001F, line\u2028sep\u2029, é 漢 🦆, </script>',
      '\\\\u001F\\u001f\u001e\\',
      Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(''),
    ];
    for (const text of texts) expect(lowercaseUnicodeEscapes(await toJson(text))).toBe(JSON.stringify(text));
  });
});

describe('lowercaseUnicodeEscapes', () => {
  it('lower-cases the hex of escapes only, never letters after an escaped backslash', () => {
    expect(lowercaseUnicodeEscapes('"\\u001F"')).toBe('"\\u001f"');
    // A backslash escaped, then the letters u001F: text, not an escape.
    expect(lowercaseUnicodeEscapes('"\\\\u001F"')).toBe('"\\\\u001F"');
    expect(lowercaseUnicodeEscapes('"\\\\\\u001F"')).toBe('"\\\\\\u001f"');
    expect(lowercaseUnicodeEscapes('"\\"\\u000B ABC"')).toBe('"\\"\\u000b ABC"');
    const same = '{"a":"no escapes at all, UPPER"}';
    expect(lowercaseUnicodeEscapes(same)).toBe(same);
  });

  it('fixes a related body piece by piece as it fixes the whole', async () => {
    // A brief (left open) and a template's entry text around the marker, each from to_json.
    const brief = (await toJson('a\u001fb\\u001F')).replace(/^/, '{"description":');
    const template = `{"same_cwe":[\u00021\u0003,"shared_keys":[${await toJson('CWE-\u001b')}]}]}`;
    const whole = template.replace('\u00021\u0003', brief);
    const pieces = lowercaseUnicodeEscapes(template).replace('\u00021\u0003', lowercaseUnicodeEscapes(brief));
    expect(pieces).toBe(lowercaseUnicodeEscapes(whole));
    expect(pieces).toBe(JSON.stringify({ same_cwe: [{ description: 'a\u001fb\\u001F', shared_keys: ['CWE-\u001b'] }] }));
  });
});
