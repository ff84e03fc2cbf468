/** The "Before → after" cell of a CVE's change history (api/pulse/components/history.tsx). */
import { describe, expect, it } from 'vitest';
import { beforeAfterText } from '../../api/pulse/components/history.tsx';

describe('beforeAfterText', () => {
  it('names each field once with its move when both sides name the same fields (it read "service score 8.9 → service score 9.4")', () => {
    expect(beforeAfterText('{"service_score":8.9}', '{"service_score":9.4}')).toBe('service score 8.9 → 9.4');
    expect(beforeAfterText('{"service_severity":"HIGH","service_score":8.9}', '{"service_severity":"CRITICAL","service_score":9.4}')).toBe(
      'service severity HIGH → CRITICAL, service score 8.9 → 9.4',
    );
    // A field that did not move is given once.
    expect(beforeAfterText('{"in_kev":true,"service_risk":60.5}', '{"in_kev":false,"service_risk":60.5}')).toBe('in kev true → false, service risk 60.5');
  });

  it('gives both sides whole when their fields differ, or a side is missing or not an object', () => {
    expect(beforeAfterText('{"in_kev":false,"service_risk":41}', '{"in_kev":true,"kev_added_date":"2025-01-10","service_risk":60.5}')).toBe(
      'in kev false, service risk 41 → in kev true, kev added date 2025-01-10, service risk 60.5',
    );
    expect(beforeAfterText(null, '{"service_score":7.5}')).toBe('— → service score 7.5');
    expect(beforeAfterText('{"status":"active","service_score":7.5}', '{"status":"rejected"}')).toBe('status active, service score 7.5 → status rejected');
    expect(beforeAfterText('not json', '{"a":1}')).toBe('not json → a 1');
    expect(beforeAfterText('{"a":null}', '{"a":2}')).toBe('a — → 2');
  });
});
