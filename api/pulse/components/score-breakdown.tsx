/**
 * Score and risk as a visual breakdown of the record's `score_factors`: the numbers shown are
 * the API's own (read from the record JSON, never recomputed), each bar drawn in SVG with its
 * value in text beside it. Risk = Σ weight × factor × 100, one row per factor.
 */
import { fixed } from '../format.ts';

export interface SvcRisk {
  risk: number;
  severity_norm: number;
  exploitation: number;
  automatable: number;
  weights: { severity: number; exploitation: number; automatable: number };
  about?: string;
  summary?: string;
}

export interface ScoreFactors {
  rule_triggered?: string[];
  sources_contributing?: string[];
  base_score?: number | null;
  cvss?: { basis?: string | null; version?: string | null; score?: number | null; vector?: string | null; assessor?: string | null } | null;
  epss?: { probability?: number | null; escalation?: string | number | null } | null;
  svc_risk?: SvcRisk | null;
}

const RULE_WORDS: Record<string, string> = {
  cvss_v3: 'CVSS v3 base score',
  cvss_v3_freshest: 'CVSS v3 base score (the fresher of NVD and the CNA, who disagree)',
  cvss_v4: 'CVSS v4 base score',
  ghsa_cvss: "GitHub advisory's CVSS vector",
  cvss_v2_only: 'CVSS v2 base score (never rated under v3)',
  vendor_severity: "the vendor's own severity band",
  ghsa_severity: "GitHub advisory's severity band",
  kev_escalation: 'exploited in the wild: raised to at least 7.0, plus 1.0',
  epss_escalation: 'EPSS ≥ 0.10 adds 0.5, ≥ 0.50 adds 1.0',
  score_floor: 'raised to the floor of 0.4 (a real assessment is never below it)',
};

/** A horizontal bar: `value` of `max`, drawn in SVG (no inline style, so the page's CSP holds). */
function Bar({ value, max, fill }: { value: number; max: number; fill: string }) {
  const width = Math.max(0, Math.min(100, (value / max) * 100));
  return (
    <svg viewBox="0 0 100 14" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="fill-track" x="0" y="0" width="100" height="14" rx="2" />
      <rect class={fill} x="0" y="0" width={width.toFixed(2)} height="14" rx="2" />
    </svg>
  );
}

export interface BreakdownProps {
  serviceScore: number;
  serviceRisk: number;
  assessed: boolean;
  unassessedReason: string | null;
  factors: ScoreFactors;
}

export function ScoreBreakdown({ serviceScore, serviceRisk, assessed, unassessedReason, factors }: BreakdownProps) {
  const risk = factors.svc_risk ?? null;
  const rules = factors.rule_triggered ?? [];
  const base = factors.base_score ?? null;
  return (
    <div class="grid" id="breakdown">
      <section class="panel" aria-labelledby="score-h">
        <h3 id="score-h">How severe: service score</h3>
        <div class="breakdown">
          {base !== null ? (
            <div class="row" data-factor="base_score">
              <span>Base: {RULE_WORDS[rules[0] ?? ''] ?? rules[0] ?? 'base score'}</span>
              <Bar value={base} max={10} fill="fill-base" />
              <span class="val" data-value={String(base)}>
                {fixed(base)}
              </span>
            </div>
          ) : null}
          {rules.slice(1).map((rule) => (
            <p class="muted" data-rule={rule}>
              Then: {RULE_WORDS[rule] ?? rule.replace(/_/g, ' ')}
            </p>
          ))}
          <div class="row" data-factor="service_score">
            <strong>Service score (0–10)</strong>
            <Bar value={assessed ? serviceScore : 0} max={10} fill="fill-severity" />
            <span class="val score-big" data-value={String(serviceScore)}>
              {assessed ? fixed(serviceScore) : '—'}
            </span>
          </div>
          {!assessed ? (
            <p>
              Not assessed ({unassessedReason === 'rejected' ? 'the record is rejected' : 'nobody has rated it yet — this is not "harmless"'}).
            </p>
          ) : null}
        </div>
      </section>
      <section class="panel" aria-labelledby="risk-h">
        <h3 id="risk-h">How urgent: risk</h3>
        {risk ? (
          <div class="breakdown">
            <div class="row" data-factor="severity_norm">
              <span>
                Severity {fixed(risk.severity_norm, 2)} × {Math.round(risk.weights.severity * 100)}%
              </span>
              <Bar value={risk.weights.severity * risk.severity_norm * 100} max={risk.weights.severity * 100} fill="fill-severity" />
              <span class="val" data-value={String(risk.severity_norm)} data-weight={String(risk.weights.severity)}>
                {fixed(risk.weights.severity * risk.severity_norm * 100)} pts
              </span>
            </div>
            <div class="row" data-factor="exploitation">
              <span>
                Exploitation {fixed(risk.exploitation, 2)} × {Math.round(risk.weights.exploitation * 100)}%
              </span>
              <Bar value={risk.weights.exploitation * risk.exploitation * 100} max={risk.weights.exploitation * 100} fill="fill-exploitation" />
              <span class="val" data-value={String(risk.exploitation)} data-weight={String(risk.weights.exploitation)}>
                {fixed(risk.weights.exploitation * risk.exploitation * 100)} pts
              </span>
            </div>
            <div class="row" data-factor="automatable">
              <span>
                Automatable {fixed(risk.automatable, 2)} × {Math.round(risk.weights.automatable * 100)}%
              </span>
              <Bar value={risk.weights.automatable * risk.automatable * 100} max={risk.weights.automatable * 100} fill="fill-automatable" />
              <span class="val" data-value={String(risk.automatable)} data-weight={String(risk.weights.automatable)}>
                {fixed(risk.weights.automatable * risk.automatable * 100)} pts
              </span>
            </div>
            <div class="row" data-factor="risk">
              <strong>Risk (0–100)</strong>
              <Bar value={serviceRisk} max={100} fill="fill-exploitation" />
              <span class="val score-big" data-value={String(risk.risk)}>
                {fixed(serviceRisk)}
              </span>
            </div>
            {risk.summary ? <p class="muted">{risk.summary}</p> : null}
          </div>
        ) : (
          <p>Risk {fixed(serviceRisk)}: no breakdown on record.</p>
        )}
      </section>
    </div>
  );
}
