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

const WIDTH = 720;
const RIGHT = 18;
const HEIGHT = 240;
const LEFT = 44;
const BOTTOM = 28;
const TOP = 8;

/** A round step for the value axis: 1, 2 or 5 × 10^n giving about four lines. */
function niceStep(max: number): number {
  const raw = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

export function TrendChart({ weeks }: { weeks: TrendPeriod[] }) {
  const max = Math.max(1, ...weeks.map((w) => STACK.reduce((s, b) => s + w[b.key], 0)));
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const plotH = HEIGHT - BOTTOM - TOP;
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(1, weeks.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  const total = weeks.reduce((s, w) => s + w.total, 0);

  return (
    <figure class="chart" id="weekly-chart" data-weeks={String(weeks.length)} data-total={String(total)}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="weekly-chart-title" focusable="false">
        <title id="weekly-chart-title">{`New CVEs per week by severity, ${weeks.length} weeks, ${count(total)} CVEs in all`}</title>
        {ticks.map((v) => (
          <g class="axis">
            <line class="grid-line" x1={LEFT} x2={WIDTH} y1={y(v)} y2={y(v)} />
            <text x={LEFT - 6} y={y(v) + 4} text-anchor="end">
              {count(v)}
            </text>
          </g>
        ))}
        {weeks.map((w, i) => {
          let base = 0;
          const x = LEFT + i * slot + (slot - barW) / 2;
          return (
            <g data-week={w.period_start}>
              {STACK.map((b) => {
                const v = w[b.key];
                if (v <= 0) return null;
                const y0 = y(base);
                base += v;
                return (
                  <rect class={`fill-${b.key}`} x={x.toFixed(1)} width={barW.toFixed(1)} y={y(base).toFixed(1)} height={(y0 - y(base)).toFixed(1)}>
                    <title>{`Week of ${w.period_start}: ${count(v)} ${b.label.toLowerCase()}`}</title>
                  </rect>
                );
              })}
              {i % 4 === weeks.length % 4 || i === weeks.length - 1 ? (
                <text x={(x + barW / 2).toFixed(1)} y={HEIGHT - 10} text-anchor="middle">
                  {w.period_start.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
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
        <div class="table-wrap">
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
