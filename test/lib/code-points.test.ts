/** Lengths in code points, as JSON Schema's maxLength counts (lib/code-points.ts). */
import { describe, expect, it } from 'vitest';
import { codePointsExceed } from '../../lib/code-points.ts';

describe('codePointsExceed', () => {
  it('counts an astral character (two UTF-16 units) as one', () => {
    const emoji = '\u{1F600}';
    expect(codePointsExceed(emoji.repeat(200), 200)).toBe(false);
    expect(codePointsExceed(emoji.repeat(201), 200)).toBe(true);
    expect(codePointsExceed(`${'a'.repeat(199)}${emoji}`, 200)).toBe(false);
    expect(codePointsExceed(`${'a'.repeat(200)}${emoji}`, 200)).toBe(true);
  });

  it('answers at the limit exactly, and for a text of many megabytes at once', () => {
    expect(codePointsExceed('a'.repeat(200), 200)).toBe(false);
    expect(codePointsExceed('a'.repeat(201), 200)).toBe(true);
    expect(codePointsExceed('', 0)).toBe(false);
    expect(codePointsExceed('a'.repeat(50_000_000), 200)).toBe(true);
  });
});
