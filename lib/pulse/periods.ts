/** Digest periods (PULSE §4): a UTC day, or an ISO 8601 week. A digest is due once per period. */
import type { Cadence } from './types.ts';

function isoWeek(date: Date): { year: number; week: number } {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7; // Monday 1 … Sunday 7
  day.setUTCDate(day.getUTCDate() + 4 - weekday); // the Thursday of this week decides its year
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  return { year: day.getUTCFullYear(), week: Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7) };
}

/** `daily:2026-11-24`, `weekly:2026-W48`; null for realtime (no periods). */
export function periodKey(cadence: Cadence, at: Date): string | null {
  if (cadence === 'daily') return `daily:${at.toISOString().slice(0, 10)}`;
  if (cadence === 'weekly') {
    const { year, week } = isoWeek(at);
    return `weekly:${year}-W${String(week).padStart(2, '0')}`;
  }
  return null;
}
