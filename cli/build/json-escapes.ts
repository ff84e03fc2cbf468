/**
 * DuckDB's to_json writes a control character as `\u001F` where JSON.stringify writes
 * `\u001f`; every other character it writes alike (test/build/json-escapes.test.ts checks this
 * over all of Unicode). So lower-casing the hex digits of each `\u` escape turns DuckDB's JSON
 * text into exactly JSON.stringify's.
 *
 * This works on text that is not whole JSON too (a related template, whose entries lack their
 * briefs, or an open brief): JSON holds a backslash only inside a string, where it always
 * starts a two-character escape or a `\uXXXX` one, so reading escapes from left to right never
 * takes a backslash that is itself escaped (`\\u001F`, a backslash then the letters) for the
 * start of one, as long as the text starts outside a string. Pieces that each start and end
 * outside a string can be fixed apart and then joined: the result is the fix of the whole.
 */

/** The `u` of a `\uXXXX` escape. */
const U = 0x75;

/** `text` with the hex digits of its `\u` escapes in lower case (the same string when none). */
export function lowercaseUnicodeEscapes(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('\\'); at >= 0 && at < text.length; at = text.indexOf('\\', at)) {
    if (text.charCodeAt(at + 1) !== U) {
      at += 2;
      continue;
    }
    const hex = text.slice(at + 2, at + 6);
    const lower = hex.toLowerCase();
    if (lower !== hex) {
      out += text.slice(copied, at + 2) + lower;
      copied = at + 6;
    }
    at += 6;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
