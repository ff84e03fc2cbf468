/** Small formatting rules shared by the /pulse pages. */
import type { Cadence } from '../../lib/pulse/types.ts';

export const SEVERITY_NAMES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE'] as const;

/** A severity label as a CSS class suffix; anything unknown is NONE. */
export function severityClass(value: string | null | undefined): string {
  const upper = (value ?? 'NONE').toUpperCase();
  return (SEVERITY_NAMES as readonly string[]).includes(upper) ? upper : 'NONE';
}

/** `2024-04-12T08:15:06.230Z` → `2024-04-12`; null stays empty. */
export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '';
}

export { minute } from '../../lib/calendar.ts';

export function fixed(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);
}

/** A probability as a percentage with up to two decimals (EPSS 0.94339 → 94.34 %). */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(value * 100).toFixed(2)} %`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 CVE`, `2 CVEs`, `1 advisory`, `3 advisories`: a count and its noun (`plural` when not noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : plural}`;
}

/**
 * A subscription's cadence in the words of the forms and the manage page. Each short enough for
 * its select at the narrowest column of a form grid (12.5rem): "After each build with matches"
 * was cut to "After each build with r" on a desktop; that nothing is sent when nothing matched
 * is the hint beside the select.
 */
export const CADENCE_LABELS: Record<Cadence, string> = {
  realtime: 'After each build',
  daily: 'Daily digest',
  weekly: 'Weekly digest',
};

/** A stored cadence in those words; one unknown to this version as stored. */
export function cadenceLabel(cadence: string): string {
  return Object.hasOwn(CADENCE_LABELS, cadence) ? CADENCE_LABELS[cadence as Cadence] : cadence;
}

/**
 * A kind of change in words, its acronyms in capitals as the whys write them ("KEV added",
 * "EPSS crossed", "new CVE"; they read "kev added", "new cve"). pulse.js writes the live list's
 * kinds alike.
 */
export function kindLabel(kind: string): string {
  return kind.replace(/_/g, ' ').replace(/\b(?:cve|kev|epss|cvss|ssvc)\b/g, (acronym) => acronym.toUpperCase());
}

// Page paths are defined once, beside the absolute links of e-mails and webhooks.
export { advisoryPath, cvePath } from '../../lib/pulse/links.ts';

/** Only http(s) links are made clickable; anything else (javascript:, data:) is shown as text. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  return /^https?:\/\//i.test(url.trim()) ? url.trim() : null;
}
