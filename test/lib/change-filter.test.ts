/**
 * The filter rules every reader shares (lib/changes/model.ts): what a filter text may hold, and
 * how a change is matched when a stored filter predates a rule.
 */
import { describe, expect, it } from 'vitest';
import { changeMatches, filterTextProblem, searchTextProblem } from '../../lib/changes/model.ts';
import { change } from '../pulse/changes-fixture.ts';

describe('search', () => {
  it('holds a letter or digit, in any script; punctuation alone is refused as /cves refuses it', () => {
    for (const raw of ['***', '!!!', ' - ', '...', '_', '¿?']) expect(searchTextProblem(raw), raw).toBe('holds no letter or digit to look for');
    for (const raw of ['x', '7', 'é', 'удалённое', '*cisco*', 'use-after-free']) expect(searchTextProblem(raw), raw).toBeNull();
    // The other rules of a filter text come first, in their own words.
    expect(searchTextProblem('   ')).toBe(filterTextProblem('   '));
    expect(searchTextProblem('a\u0001')).toBe('holds a control character');
  });

  it('a stored search with no word matches no change (it matched every one: alerts on everything)', () => {
    const row = change({ build_id: 'b', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', cve_id: 'CVE-2026-0001', title: 'Exchange *** RCE', why: 'Published !!!' });
    expect(changeMatches({ search: '***' }, row)).toBe(false);
    expect(changeMatches({ search: '!!!' }, row)).toBe(false);
    expect(changeMatches({ search: 'exchange' }, row)).toBe(true);
  });
});
