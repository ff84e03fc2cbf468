/** Severity and KEV badges: the label is always text, colour only repeats it. */
import { severityClass } from '../format.ts';

export function SeverityBadge({ severity, prefix }: { severity: string | null | undefined; prefix?: string }) {
  const cls = severityClass(severity);
  return <span class={`badge sev-${cls}`}>{prefix ? `${prefix} ${cls}` : cls}</span>;
}

export function KevBadge() {
  return (
    <span class="badge kev" title="Listed in CISA's Known Exploited Vulnerabilities catalog">
      KEV
    </span>
  );
}

/**
 * A vendor advisory saying a vulnerability it covers is exploited in the wild: the vendor's word,
 * not CISA's catalog (KevBadge), which may not list any of its CVEs.
 */
export function VendorExploitedBadge({ vendor }: { vendor: string }) {
  return (
    <span class="badge kev" title={`${vendor} says it is exploited in the wild`}>
      EXPLOITED
    </span>
  );
}
