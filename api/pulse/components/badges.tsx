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
