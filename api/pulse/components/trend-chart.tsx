/**
 * Weekly new CVEs by service severity as a stacked bar chart in server-rendered SVG, with the
 * same numbers in a table beside it (screen readers and anyone without SVG read the table).
 * SVG rendered here needs no client code, no asset and no layout pass in the browser: the
 * chart is there with JavaScript off, and prints.
 */
import type { TrendPeriod } from '../../queries/cves-trends.ts';
import { count } from '../format.ts';

/** Bottom to top. */
const STACK = [
  { key: 'critical', label: 'Critical' },
  { key: 'high', label: 'High' },
  { key: 'medium', label: 'Medium' },
  { key: 'low', label: 'Low' },
  { key: 'unscored', label: 'Not assessed' },
] as const;

/**
 * The plot is an SVG without a viewBox: its x coordinates are percentages of its width and its
 * y coordinates CSS pixels, so the page's width stretches the bars but never scales the text —
 * a 720-unit viewBox drawn on a 390 px phone made 11 px labels 6 px tall. The value axis is a
 * narrow SVG of its own beside it (fixed width, the same height).
 */
const HEIGHT = 220;
const TOP = 10;
/** Room for two lines of week labels (the date, and the year where it changes). */
const BOTTOM = 40;
/** The value axis's width, in CSS pixels (pulse.css: .chart .y-axis). */
const AXIS_W = 44;
/** Bars keep this share of the width free at each side, so the outer labels are not cut off. */
const SIDE = 3;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-06-08` → `Jun 8` (a month and a day read the same in every locale; `06-08` did not). */
function shortDay(iso: string): string {
  return `${MONTHS[Number(iso.slice(5, 7)) - 1] ?? iso.slice(5, 7)} ${Number(iso.slice(8, 10))}`;
}

/** A round step for the value axis: 1, 2 or 5 × 10^n giving about four lines. */
function niceStep(max: number): number {
  const raw = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

interface WeekLabel {
  index: number;
  text: string;
  /** The year, shown under the date where it starts being ambiguous (first label, a new year). */
  year: string | null;
  /** Shown on a phone too (every other label: about four across). */
  major: boolean;
}

/**
 * Which weeks are labelled: about eight across a desktop (the last week always), every other one
 * of them on a phone. A label carries its year when it is the first of its kind or the year
 * changed since the previous label that is shown beside it (the previous major one for a major
 * label, the previous label for a minor one).
 */
function weekLabels(weeks: TrendPeriod[]): WeekLabel[] {
  const step = Math.max(1, Math.ceil(weeks.length / 8));
  const picked: number[] = [];
  for (let i = weeks.length - 1; i >= 0; i -= step) picked.unshift(i);
  let lastYear: string | null = null;
  let lastMajorYear: string | null = null;
  return picked.map((index, n) => {
    const major = (picked.length - 1 - n) % 2 === 0;
    const year = weeks[index]!.period_start.slice(0, 4);
    const showYear = major ? year !== lastMajorYear : year !== lastYear;
    lastYear = year;
    if (major) lastMajorYear = year;
    return { index, text: shortDay(weeks[index]!.period_start), year: showYear ? year : null, major };
  });
}

export function TrendChart({ weeks }: { weeks: TrendPeriod[] }) {
  const max = Math.max(1, ...weeks.map((w) => STACK.reduce((s, b) => s + w[b.key], 0)));
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const plotH = HEIGHT - BOTTOM - TOP;
  const slot = (100 - 2 * SIDE) / Math.max(1, weeks.length);
  const barW = slot * 0.7;
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const pct = (v: number) => `${v.toFixed(2)}%`;
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  const total = weeks.reduce((s, w) => s + w.total, 0);
  const labels = weekLabels(weeks);

  return (
    <figure class="chart" id="weekly-chart" data-weeks={String(weeks.length)} data-total={String(total)}>
      <div class="plot-wrap">
        <svg class="y-axis" width={AXIS_W} height={HEIGHT} aria-hidden="true" focusable="false">
          {ticks.map((v) => (
            <text class="axis-label" x={AXIS_W - 6} y={(y(v) + 4).toFixed(1)} text-anchor="end">
              {count(v)}
            </text>
          ))}
        </svg>
        <svg class="plot" height={HEIGHT} role="img" aria-labelledby="weekly-chart-title" focusable="false">
          <title id="weekly-chart-title">{`New CVEs per week by severity, ${weeks.length} weeks from ${weeks[0]?.period_start ?? '—'}, ${count(total)} CVEs in all`}</title>
          {ticks.map((v) => (
            <line class="grid-line" x1="0" x2="100%" y1={y(v).toFixed(1)} y2={y(v).toFixed(1)} />
          ))}
          {weeks.map((w, i) => {
            let base = 0;
            const x = SIDE + i * slot + (slot - barW) / 2;
            return (
              <g data-week={w.period_start}>
                {STACK.map((b) => {
                  const v = w[b.key];
                  if (v <= 0) return null;
                  const y0 = y(base);
                  base += v;
                  return (
                    <rect class={`fill-${b.key}`} x={pct(x)} width={pct(barW)} y={y(base).toFixed(1)} height={(y0 - y(base)).toFixed(1)}>
                      <title>{`Week of ${w.period_start}: ${count(v)} ${b.label.toLowerCase()}`}</title>
                    </rect>
                  );
                })}
              </g>
            );
          })}
          {labels.map((l) => {
            // The last week's label ends at its bar's right (centred, a phone's edge cut it).
            const last = l.index === weeks.length - 1;
            const x = pct(SIDE + l.index * slot + (last ? slot : slot / 2));
            const anchor = last ? 'end' : 'middle';
            return (
              <g class={`axis-label week-label${l.major ? '' : ' minor'}`} data-week-label={weeks[l.index]!.period_start}>
                <text x={x} y={HEIGHT - BOTTOM + 16} text-anchor={anchor}>
                  {l.text}
                </text>
                {l.year ? (
                  <text x={x} y={HEIGHT - BOTTOM + 31} text-anchor={anchor}>
                    {l.year}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption>
        <ul class="legend" aria-label="Legend">
          {STACK.map((b) => (
            <li>
              <span class={`swatch fill-${b.key}`} aria-hidden="true"></span>
              {b.label}
            </li>
          ))}
        </ul>
        Weeks start on Monday (UTC); the last week may still be running.
      </figcaption>
      <details>
        <summary>The numbers behind the chart</summary>
        {/* Wider than a phone: it scrolls in its box, which the keyboard must reach (a focusable,
            named region) to bring its last columns into sight. */}
        <div class="table-wrap" tabindex={0} role="region" aria-label="The numbers behind the chart">
          <table>
            <caption>New CVEs per week</caption>
            <thead>
              <tr>
                <th scope="col">Week of</th>
                {STACK.map((b) => (
                  <th scope="col" class="num">
                    {b.label}
                  </th>
                ))}
                <th scope="col" class="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {weeks.map((w) => (
                <tr>
                  <th scope="row" class="date">
                    {w.period_start}
                  </th>
                  {STACK.map((b) => (
                    <td class="num">{count(w[b.key])}</td>
                  ))}
                  <td class="num">{count(w.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
