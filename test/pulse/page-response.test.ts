/** Pages hold no character HTML forbids, whatever upstream text holds (api/pulse/page-response.ts). */
import { describe, expect, it } from 'vitest';
import { documentOf } from '../../api/pulse/page-response.ts';

describe('documentOf', () => {
  it('drops the control characters HTML forbids (a description with BEL and VT drew boxes), keeps tab and line breaks', async () => {
    const tree = { toString: () => '<p>bell\u0007 vt\u000b nul\u0000 del\u007f tab\t lf\n cr\r</p>' };
    expect(await documentOf(tree)).toBe('<!doctype html><p>bell vt nul del tab\t lf\n cr\r</p>');
  });
});
