/**
 * The scan's three outputs: a text table (findings by service risk, with KEV and EPSS, then
 * what could not be judged), JSON (everything, for tools), and SARIF 2.1.0 (one rule per CVE
 * in `runs[].tool.driver.rules`, one result per finding located at the SBOM file, components
 * that could not be judged as tool execution notifications).
 */
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findingId } from '../../lib/packages/check.ts';
import { printable } from '../../lib/terminal-text.ts';
import type { ScanFinding, ScanResult, UnjudgedAdvisories } from './scan.ts';

export interface ScanContext {
  file: string;
  buildId: string;
  format: string;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function componentLabel(f: { component: { name: string; purl: string | null } }): string {
  return f.component.purl ?? f.component.name;
}

function upgradeText(f: ScanFinding): string {
  if (f.upgrade_to) return f.upgrade_to;
  return f.fixed_in ? `${f.fixed_in} (this ${f.cve_id === null ? 'advisory' : 'CVE'})` : 'no fix on record';
}

/** CVE ids a table or SARIF line names per group of unjudged advisories; the JSON has them all. */
const TABLE_IDS_SHOWN = 5;

/** One line for a group: package, components, how many CVEs (the first few named) and why. */
function unjudgedText(g: UnjudgedAdvisories, shown: number): string {
  const ids = g.cves.slice(0, shown).map(findingId).join(', ');
  const more = g.cves.length > shown ? ` and ${g.cves.length - shown} more` : '';
  const components = g.components.length === 1 ? `component ${g.components[0]}` : `${g.components.length} components`;
  return `${g.package_name} (${g.ecosystem}, ${components}): ${g.cves.length} CVE${g.cves.length === 1 ? '' : 's'} (${ids}${more}) — ${g.reason}`;
}

export function renderTable(r: ScanResult, ctx: ScanContext): string {
  const lines: string[] = [];
  lines.push(`${printable(ctx.file)} (${ctx.format}): ${r.components} components, ${r.judged} judged, ${r.findings.length} findings — snapshot ${ctx.buildId}`);
  if (r.findings.length > 0) {
    const rows = r.findings.map((f) =>
      [f.service_severity, f.service_risk.toFixed(1), f.kev ? 'KEV' : '', f.epss_score === null ? '' : f.epss_score.toFixed(3), findingId(f), componentLabel(f), f.version, upgradeText(f)].map(printable),
    );
    const head = ['SEVERITY', 'RISK', 'KEV', 'EPSS', 'CVE', 'COMPONENT', 'VERSION', 'UPGRADE TO'];
    const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((row) => row[i]!.length))));
    lines.push('', head.map((h, i) => pad(h, widths[i]!)).join('  ').trimEnd());
    for (const row of rows) lines.push(row.map((c, i) => pad(c, widths[i]!)).join('  ').trimEnd());
  } else {
    lines.push('', 'No known vulnerability in the judged components.');
  }
  if (r.unjudged.length > 0) {
    lines.push('', `Not judged (${r.unjudged.length} component${r.unjudged.length === 1 ? '' : 's'}):`);
    for (const u of r.unjudged) lines.push(printable(`  ${u.component.purl ?? u.component.name}${u.component.version ? ` ${u.component.version}` : ''}: ${u.reason}`));
  }
  if (r.unjudged_advisories.length > 0) {
    const count = r.unjudged_advisories.reduce((n, g) => n + g.cves.length, 0);
    lines.push('', `Advisories that could not be compared (${count}, in ${r.unjudged_advisories.length} groups; --format json lists every one):`);
    for (const g of r.unjudged_advisories) lines.push(`  ${printable(unjudgedText(g, TABLE_IDS_SHOWN))}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * JSON and SARIF are written compact, one line: they are for tools (a thousand-component SBOM
 * gives tens of megabytes, a third more and slower indented); `jq .` indents them for a reader.
 */
export function renderJson(r: ScanResult, ctx: ScanContext): string {
  return `${JSON.stringify({ sbom: ctx.file, format: ctx.format, snapshot: ctx.buildId, ...r })}\n`;
}

function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { CRITICAL: 'error', HIGH: 'error', MEDIUM: 'warning', LOW: 'note', NONE: 'note' };

/**
 * The SBOM's path as a SARIF `artifactLocation.uri`, which is a URI reference (SARIF 2.1.0
 * §3.4.3): each segment percent-encoded. Written as given, `my sbom.json` was no URI and
 * `sbom#2.json` named `sbom` with a fragment, `a%41.json` the file `aA.json`. A Windows path is
 * a file: URI (its drive letter would read as a scheme).
 */
export function artifactUri(file: string): string {
  if (sep === '\\' && isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(sep).map(encodeURIComponent).join('/');
}

/** The rule's figures in words: severity, score (or that nobody rated it), risk, KEV, EPSS. */
function ruleFigures(f: ScanFinding): string {
  const score = f.score_assessed ? `service score ${f.service_score.toFixed(1)} of 10` : 'not rated by any source yet';
  return `${f.service_severity}, ${score}, service risk ${f.service_risk.toFixed(1)}${f.kev ? ', in CISA KEV' : ''}${f.epss_score === null ? '' : `, EPSS ${f.epss_score}`}`;
}

/**
 * A rule's help (GitHub code scanning requires `help.text` and `fullDescription.text` of every
 * rule, and shows them as the alert's description): the figures, each package of the SBOM the
 * advisory was found in with its fix, the advisories, and the page to read more. Plain text:
 * the package names come from the SBOM, and markdown would render what a crafted one holds.
 */
function ruleHelp(id: string, findings: readonly ScanFinding[], uri: string): { fullDescription: string; help: string } {
  const f = findings[0]!;
  const packages = [...new Set(findings.map((x) => `${x.ecosystem} ${x.package_name}: ${x.fixed_in === null ? 'no fix on record' : `fixed in ${x.fixed_in}`}`))];
  const advisories = [...new Set(findings.flatMap((x) => x.advisory_ids))];
  const names = [...new Set(findings.map((x) => `${x.ecosystem} ${x.package_name}`))];
  return {
    fullDescription: `${id} (${ruleFigures(f)}) affects ${names.join(', ')}.`,
    help: [
      `${id}: ${ruleFigures(f)}.`,
      '',
      'Affected packages in this SBOM:',
      ...packages.map((p) => `  ${p}`),
      ...(advisories.length > 0 ? ['', `Advisories: ${advisories.join(', ')}`] : []),
      '',
      `Details: ${uri}`,
    ].join('\n'),
  };
}

export function renderSarif(r: ScanResult, ctx: ScanContext): string {
  const uri = artifactUri(ctx.file);
  const byId = new Map<string, ScanFinding[]>();
  for (const f of r.findings) {
    const id = findingId(f);
    const same = byId.get(id);
    if (same) same.push(f);
    else byId.set(id, [f]);
  }
  const rules: Record<string, unknown>[] = [];
  const ruleIndex = new Map<string, number>();
  for (const [id, findings] of byId) {
    const f = findings[0]!;
    ruleIndex.set(id, rules.length);
    // An advisory that names no CVE: its OSV page (OSV.dev serves GHSA and every OSV database).
    const helpUri = f.cve_id === null ? `https://osv.dev/vulnerability/${encodeURIComponent(id)}` : `https://www.cve.org/CVERecord?id=${id}`;
    const { fullDescription, help } = ruleHelp(id, findings, helpUri);
    rules.push({
      id,
      name: id.replaceAll('-', ''),
      shortDescription: { text: `${id} (${f.service_severity}${f.kev ? ', in CISA KEV' : ''})` },
      fullDescription: { text: fullDescription },
      help: { text: help },
      helpUri,
      defaultConfiguration: { level: LEVEL[f.service_severity] ?? 'warning' },
      // A CVE nobody has rated has the score 0 as a placeholder (score_assessed false): as a
      // security-severity, GitHub would show it as harmless where it is unknown.
      properties: { ...(f.score_assessed ? { 'security-severity': f.service_score.toFixed(1) } : {}), tags: ['security', 'vulnerability', ...(f.kev ? ['kev'] : [])] },
    });
  }
  const results = r.findings.map((f) => {
    const id = findingId(f);
    return {
      ruleId: id,
      ruleIndex: ruleIndex.get(id)!,
      level: LEVEL[f.service_severity] ?? 'warning',
      message: {
        text: `${componentLabel(f)} ${f.version} is affected by ${id} (${f.service_severity}, service risk ${f.service_risk.toFixed(1)}${f.kev ? ', in CISA KEV' : ''}${f.epss_score === null ? '' : `, EPSS ${f.epss_score}`}): ${f.matched.map((m) => m.why).join('; ')}. Upgrade to: ${upgradeText(f)}.`,
      },
      locations: [
        {
          // GitHub code scanning requires a region's startLine; a finding is about the whole
          // SBOM (a compact one is one line), so its first line, as Trivy and Grype write.
          physicalLocation: { artifactLocation: { uri }, region: { startLine: 1 } },
          logicalLocations: [{ name: componentLabel(f), fullyQualifiedName: f.component.ref, kind: 'package' }],
        },
      ],
      // The same finding in the next scan is the same alert (GitHub code scanning matches results by
      // it): the advisory and the package, not the version (an upgrade still affected stays one
      // alert) nor the SBOM's line (results carry no region to hash).
      partialFingerprints: { 'vulnintelFinding/v1': hash('sha256', [id, f.ecosystem, f.package_name, f.component.name].join('\u0000'), 'hex') },
      properties: { service_risk: f.service_risk, kev: f.kev, epss_score: f.epss_score, advisory_ids: f.advisory_ids, upgrade_to: f.upgrade_to },
    };
  });
  const notifications = [
    ...r.unjudged.map((u) => ({ level: 'warning', message: { text: `Not judged: ${u.component.purl ?? u.component.name}: ${u.reason}` } })),
    ...r.unjudged_advisories.map((g) => ({ level: 'note', message: { text: `Not compared: ${unjudgedText(g, TABLE_IDS_SHOWN)}` } })),
  ];
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'vulnintel', version: toolVersion(), informationUri: 'https://github.com/vulnintel/vulnintel', rules } },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        artifacts: [{ location: { uri } }],
        results,
        properties: { snapshot: ctx.buildId },
      },
    ],
  };
  return `${JSON.stringify(sarif)}\n`;
}
