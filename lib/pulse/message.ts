/**
 * One alert message (PULSE §5): the matched changes of one subscription in one run, grouped by
 * subject (a CVE, or an advisory), subjects ordered by risk (highest first), each change saying
 * what changed (before → after), why, and linking to the subject's /pulse page. Rendered as
 * plain text (e-mail text part, and the webhook's `text` that Slack and Teams show as is),
 * escaped HTML (e-mail HTML part), and structured items (webhook JSON). Bounded: at most
 * MAX_SUBJECTS subjects; the rest are counted, not listed.
 */
import { whyQuotesTitle, type ChangeRow } from '../changes/model.ts';
import { BIDI_CONTROLS, escapeHtml } from '../html.ts';
import type { PulseLinks } from './links.ts';
import type { Cadence } from './types.ts';

export const MAX_SUBJECTS = 100;

export interface MessageChange {
  change_id: string;
  kind: string;
  build_id: string;
  detected_at: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  why: string;
}

export interface MessageItem {
  subject_type: 'cve' | 'advisory';
  cve_id: string | null;
  vendor: string | null;
  advisory_id: string | null;
  title: string | null;
  url: string;
  service_severity: string | null;
  service_risk: number | null;
  in_kev: boolean | null;
  epss_score: number | null;
  changes: MessageChange[];
}

export interface AlertMessage {
  subject: string;
  text: string;
  html: string;
  items: MessageItem[];
  totalChanges: number;
  totalSubjects: number;
  /** Subjects left out past MAX_SUBJECTS. */
  omittedSubjects: number;
}

export interface MessageContext {
  cadence: Cadence;
  periodKey: string;
  links: PulseLinks;
}

const KIND_LABEL: Record<string, string> = {
  new_cve: 'New CVE',
  new_advisory: 'New vendor advisory',
  advisory_linked: 'Advisory now names a CVE',
  kev_added: 'Added to CISA KEV',
  kev_removed: 'Removed from CISA KEV',
  severity_changed: 'Severity changed',
  score_changed: 'Score changed',
  risk_changed: 'Risk changed',
  epss_crossed: 'EPSS crossed a threshold',
  exploit_published: 'Public exploit published',
  assessed: 'Assessed',
  rejected: 'Rejected',
  cvss_changed: 'CVSS v3 changed',
  ssvc_changed: 'SSVC decision changed',
};

function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null || text === '') return null;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { value: text };
  }
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `in_kev: false → true; service_risk: 41 → 88` */
export function describeDelta(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys.map((key) => `${key}: ${show(before?.[key])} → ${show(after?.[key])}`).join('; ');
}

function subjectKey(change: ChangeRow): string {
  return change.subject_type === 'cve' ? `cve:${change.cve_id}` : `advisory:${change.vendor}/${change.advisory_id}`;
}

function subjectName(item: MessageItem): string {
  return item.subject_type === 'cve' ? item.cve_id ?? '?' : `${item.vendor ?? '?'} ${item.advisory_id ?? '?'}`;
}

/** Groups the changes by subject, newest brief wins, subjects by risk then id. */
export function groupChanges(changes: readonly ChangeRow[], links: PulseLinks): MessageItem[] {
  const groups = new Map<string, MessageItem>();
  for (const change of changes) {
    const key = subjectKey(change);
    let item = groups.get(key);
    const brief = {
      title: change.title,
      service_severity: change.service_severity,
      service_risk: change.service_risk,
      in_kev: change.in_kev,
      epss_score: change.epss_score,
    };
    if (!item) {
      item = {
        subject_type: change.subject_type,
        cve_id: change.cve_id,
        vendor: change.vendor,
        advisory_id: change.advisory_id,
        url: change.subject_type === 'cve' && change.cve_id ? links.cve(change.cve_id) : links.advisory(change.vendor ?? '', change.advisory_id ?? ''),
        ...brief,
        changes: [],
      };
      groups.set(key, item);
    } else if (change.detected_at >= (item.changes.at(-1)?.detected_at ?? '')) {
      Object.assign(item, brief);
    }
    item.changes.push({
      change_id: change.change_id,
      kind: change.kind,
      build_id: change.build_id,
      detected_at: change.detected_at,
      before: parseJsonObject(change.before),
      after: parseJsonObject(change.after),
      why: change.why,
    });
  }
  return [...groups.values()].sort((a, b) => (b.service_risk ?? -1) - (a.service_risk ?? -1) || subjectName(a).localeCompare(subjectName(b)));
}

/**
 * A score or risk as the change sentences write it (sql/10_changes.sql change_num): one decimal,
 * without a trailing ".0" (60.5, 88). Rounded to a whole number, the heading said "risk 61" over
 * a change saying "service risk 51.6 → 60.5".
 */
function oneDecimal(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '');
}

/**
 * The subject, its title and its facts. The title is left out when a change's why already quotes
 * it (a new advisory's does): the mail said it twice, one line apart, as the Atom feed did.
 */
function headline(item: MessageItem): string {
  const facts = [item.service_severity, item.service_risk !== null ? `risk ${oneDecimal(item.service_risk)}` : null, item.in_kev ? 'KEV' : null].filter(Boolean);
  const title = item.title && !item.changes.some((c) => whyQuotesTitle(c.why, item.title)) ? ` — ${item.title}` : '';
  return `${subjectName(item)}${title}${facts.length ? ` (${facts.join(', ')})` : ''}`;
}

function changeLine(change: MessageChange): { label: string; delta: string } {
  return { label: KIND_LABEL[change.kind] ?? change.kind, delta: describeDelta(change.before, change.after) };
}

function periodLabel(ctx: MessageContext): string {
  if (ctx.cadence === 'realtime') return 'new changes';
  return `${ctx.cadence} digest, ${ctx.periodKey.slice(ctx.periodKey.indexOf(':') + 1)}`;
}

const HTML_END = '</body></html>';

/** Controls (C0, C1), line and paragraph separators, bidirectional controls: see oneLine. */
const LINE_BREAKERS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]+`, 'g');

/**
 * Upstream text on one line of the text part: line breaks, other control characters and the
 * bidirectional overrides become one space, so a description cannot make a line of its own
 * ("Manage or unsubscribe: https://elsewhere") or reverse what follows it.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKERS, ' ');
}

/**
 * A text part as a chat webhook's `text`: Slack reads `<…>` as a mention (`<!channel>`) or a
 * link whose label hides its target (`<https://…|Official fix>`), and asks for `&`, `<` and `>`
 * escaped as HTML entities; Teams shows them as typed.
 */
export function chatText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * The e-mail form: the message with its manage link (one per message; webhooks are managed with
 * the link given at creation, and a chat channel should not hold it).
 */
export function withManageLink(message: AlertMessage, manageUrl: string): AlertMessage {
  return {
    ...message,
    text: `${message.text}\nManage or unsubscribe: ${manageUrl}`,
    html: `${message.html.slice(0, -HTML_END.length)}<p style="color:#555"><a href="${escapeHtml(manageUrl)}">Manage or unsubscribe</a></p>\n${HTML_END}`,
  };
}

export function composeMessage(changes: readonly ChangeRow[], ctx: MessageContext): AlertMessage {
  const all = groupChanges(changes, ctx.links);
  const items = all.slice(0, MAX_SUBJECTS);
  const omitted = all.length - items.length;
  const subjectsWord = all.length === 1 ? 'subject' : 'subjects';
  const changesWord = changes.length === 1 ? 'change' : 'changes';
  // The subject names the first subject as upstream spells it (an advisory's vendor and id):
  // on one line, without bidirectional controls, as in the text part.
  const first = items[0] ? ` — ${oneLine(subjectName(items[0]))}${items[0].changes[0] ? `: ${changeLine(items[0].changes[0]).label}` : ''}` : '';
  const subject = `[vulnintel] ${periodLabel(ctx)}: ${changes.length} ${changesWord} on ${all.length} ${subjectsWord}${first}`;

  const text: string[] = [`vulnintel — ${periodLabel(ctx)}: ${changes.length} ${changesWord} on ${all.length} ${subjectsWord}, highest risk first.`, ''];
  for (const item of items) {
    text.push(oneLine(headline(item)), item.url);
    for (const change of item.changes) {
      const { label, delta } = changeLine(change);
      text.push(`  • ${label}${delta ? ` (${oneLine(delta)})` : ''}: ${oneLine(change.why)}`);
    }
    text.push('');
  }
  if (omitted > 0) text.push(`…and ${omitted} more ${omitted === 1 ? 'subject' : 'subjects'} (see the change feed).`, '');

  const html: string[] = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.4">',
    `<p>vulnintel — ${escapeHtml(periodLabel(ctx))}: <strong>${changes.length}</strong> ${changesWord} on ${all.length} ${subjectsWord}, highest risk first.</p>`,
  ];
  for (const item of items) {
    html.push(`<h3 style="margin-bottom:0.2em"><a href="${escapeHtml(item.url)}">${escapeHtml(headline(item))}</a></h3><ul style="margin-top:0.2em">`);
    for (const change of item.changes) {
      const { label, delta } = changeLine(change);
      html.push(`<li><strong>${escapeHtml(label)}</strong>${delta ? ` <code>${escapeHtml(delta)}</code>` : ''}: ${escapeHtml(change.why)}</li>`);
    }
    html.push('</ul>');
  }
  if (omitted > 0) html.push(`<p>…and ${omitted} more ${omitted === 1 ? 'subject' : 'subjects'} (see the change feed).</p>`);
  html.push(HTML_END);

  return { subject, text: text.join('\n'), html: html.join('\n'), items, totalChanges: changes.length, totalSubjects: all.length, omittedSubjects: omitted };
}
