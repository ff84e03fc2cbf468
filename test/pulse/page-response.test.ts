/** Pages hold no character HTML forbids, whatever upstream text holds (api/pulse/page-response.ts). */
import { describe, expect, it } from 'vitest';
import { documentOf } from '../../api/pulse/page-response.ts';

describe('documentOf', () => {
  it('drops the control characters HTML forbids (a description with BEL and VT drew boxes), keeps tab and line breaks', async () => {
    const tree = { toString: () => '<p>bell\u0007 vt\u000b nul\u0000 del\u007f tab\t lf\n cr\r</p>' };
    expect(await documentOf(tree)).toBe('<!doctype html><p>bell vt nul del tab\t lf\n cr\r</p>');
  });

  it('drops the bidirectional controls (U+202A–U+202E, U+2066–U+2069): a title cannot show its text reordered', async () => {
    const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    const tree = { toString: () => `<title>invoice${controls.join('')}fdp.exe</title><p title="a\u202eb">x\u2067y</p><p>עברית العربية</p>` };
    expect(await documentOf(tree)).toBe('<!doctype html><title>invoicefdp.exe</title><p title="ab">xy</p><p>עברית العربية</p>');
  });
});
