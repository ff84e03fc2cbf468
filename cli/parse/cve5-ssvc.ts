/**
 * SSVC decision points from the `options` list CISA publishes: the CVE 5 ADP form
 * (`{"Exploitation": "Active"}`, `{"Technical Impact": "total"}`) and NVD's `ssvcV203` copy of
 * the same content (`{"technicalImpact": "total"}`). Keys are matched in any case, with spaces
 * or camel case; values go through the shared normalisers (`public poc` → `poc`, any case).
 */
import {
  isObject,
  normalizeSsvcAutomatable,
  normalizeSsvcExploitation,
  normalizeSsvcTechnicalImpact,
} from './common.ts';

export interface SsvcDecisionPoints {
  exploitation: 'none' | 'poc' | 'active' | null;
  automatable: 'yes' | 'no' | null;
  technical_impact: 'partial' | 'total' | null;
}

/** `Technical Impact`, `technicalImpact`, `technical_impact` → `technicalimpact`. */
const NOT_A_LETTER = /[^a-z]/g;

function keyOf(key: string): string {
  return key.toLowerCase().replace(NOT_A_LETTER, '');
}

/** `options` is a list of one-key objects; a single object holding every key is read too. */
export function readSsvcOptions(options: unknown): SsvcDecisionPoints {
  const out: SsvcDecisionPoints = { exploitation: null, automatable: null, technical_impact: null };
  const items = Array.isArray(options) ? options : [options];
  for (const item of items) {
    if (!isObject(item)) continue;
    for (const [key, value] of Object.entries(item)) {
      const k = keyOf(key);
      if (k === 'exploitation') out.exploitation = normalizeSsvcExploitation(value);
      else if (k === 'automatable') out.automatable = normalizeSsvcAutomatable(value);
      else if (k === 'technicalimpact') out.technical_impact = normalizeSsvcTechnicalImpact(value);
    }
  }
  return out;
}
