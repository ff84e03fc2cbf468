/**
 * Readable descriptions and titles in the styles real CNAs write (MITRE's classic sentence,
 * VulDB's "A vulnerability was found in…", the kernel's "In the Linux kernel, the following
 * vulnerability has been resolved", Wordfence's plugin text, GitHub's package text,
 * Microsoft's bare titles), plus the quirks parsers must survive (non-breaking spaces,
 * literal `\r\n`, embedded newlines).
 */
import type { Cna } from './cnas.ts';
import type { Product } from './products.ts';
import type { Rng } from './random.ts';
import {
  FILE_STEMS, FUNCTION_PARTS, IMPACT_TITLES, KERNEL_SUBSYSTEMS, LOCAL_ACTORS, PARAMETERS,
  PLUGIN_PURPOSES, REMOTE_ACTORS, SPANISH_CLASS, SPANISH_TAIL, VECTORS, type VulnClass,
} from './vocab.ts';

export interface TextContext {
  cls: VulnClass;
  product: Product;
  cna: Cna;
  year: number;
  /** Last affected version and first fixed version, for "before X" phrasing. */
  affectedUpTo: string;
  fixedIn: string | null;
  local: boolean;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const titles = new Map<string, string>();

/** "cross-site scripting (XSS)" → "Cross-Site Scripting (XSS)" (KEV and MSRC naming). */
export function titleCase(phrase: string): string {
  let t = titles.get(phrase);
  if (t === undefined) {
    t = computeTitleCase(phrase);
    titles.set(phrase, t);
  }
  return t;
}

function computeTitleCase(phrase: string): string {
  return phrase
    .split(' ')
    .map((w) => (w.startsWith('(') ? w : w.split('-').map(capitalise).join('-')))
    .join(' ');
}

function functionName(rng: Rng): string {
  return `${rng.pick(FUNCTION_PARTS[0])}_${rng.pick(FUNCTION_PARTS[1])}`;
}

function fileName(rng: Rng, web: boolean): string {
  return web ? `${rng.pick(FILE_STEMS)}.php` : `src/${rng.pick(FUNCTION_PARTS[1])}.c`;
}

function versionPhrase(ctx: TextContext, rng: Rng): string {
  if (ctx.fixedIn) return rng.pick([`before ${ctx.fixedIn}`, `prior to ${ctx.fixedIn}`, `through ${ctx.affectedUpTo}`]);
  return `through ${ctx.affectedUpTo}`;
}

function actor(ctx: TextContext, rng: Rng): string {
  return ctx.local ? rng.pick(LOCAL_ACTORS) : rng.pick(REMOTE_ACTORS);
}

/** The English description of a CVE. */
export function description(ctx: TextContext, rng: Rng): string {
  const { cls, product: p } = ctx;
  const name = p.vendorName === p.productName || p.productName.startsWith(p.vendorName) ? p.productName : `${p.vendorName} ${p.productName}`;
  const web = cls.domain === 'web' || p.kind === 'web' || p.kind === 'plugin';
  let text: string;
  const style = ctx.year < 2016 ? 'legacy' : p.kind === 'plugin' ? 'wordfence' : ctx.cna.style;
  switch (style) {
    case 'legacy':
      text = rng.chance(0.3)
        ? `Multiple ${cls.phrase} vulnerabilities in ${name} ${versionPhrase(ctx, rng)} allow ${actor(ctx, rng)} to ${cls.achieves} via the ${rng.pick(PARAMETERS)} parameter to ${fileName(rng, web)}.`
        : `${capitalise(cls.phrase)} vulnerability in ${name} ${versionPhrase(ctx, rng)} allows ${actor(ctx, rng)} to ${cls.achieves} via ${rng.pick(VECTORS)}.`;
      break;
    case 'vuldb':
      text =
        `A vulnerability was found in ${name} up to ${ctx.affectedUpTo}. It has been classified as ${rng.pick(['critical', 'problematic', 'critical'])}. ` +
        `Affected is the function ${functionName(rng)} of the file /${fileName(rng, web)}. The manipulation of the argument ${rng.pick(PARAMETERS)} leads to ${cls.phrase}. ` +
        `The attack can be launched remotely. The exploit has been disclosed to the public and may be used.`;
      break;
    case 'kernel': {
      const sub = rng.pick(KERNEL_SUBSYSTEMS);
      const fn = functionName(rng);
      text =
        `In the Linux kernel, the following vulnerability has been resolved:\n\n${sub}: fix ${cls.phrase} in ${fn}()\n\n` +
        `${capitalise(fn)}() can be reached with a ${rng.pick(FUNCTION_PARTS[1])} that was already released, which leads to ${cls.phrase}. ` +
        `Check the reference count before using it.`;
      break;
    }
    case 'wordfence':
      text =
        `The ${p.productName} plugin for WordPress is vulnerable to ${cls.phrase} via the '${rng.pick(PARAMETERS)}' parameter in all versions up to, and including, ${ctx.affectedUpTo} ` +
        `due to insufficient input sanitization and output escaping. This makes it possible for ${rng.pick(['unauthenticated attackers', 'authenticated attackers, with Contributor-level access and above,', 'authenticated attackers, with Subscriber-level access and above,'])} to ${cls.achieves}.`;
      break;
    case 'github':
      text =
        `${p.productName} is ${rng.pick(PLUGIN_PURPOSES)}. ${ctx.fixedIn ? `Prior to version ${ctx.fixedIn}` : `In versions up to ${ctx.affectedUpTo}`}, ` +
        `${cls.phrase} in the ${rng.pick(FUNCTION_PARTS[1])} handling allows ${actor(ctx, rng)} to ${cls.achieves}. ` +
        (ctx.fixedIn ? `This issue has been patched in version ${ctx.fixedIn}.` : 'No known patch is available.');
      break;
    case 'microsoft':
      text = `${p.productName} ${IMPACT_TITLES[cls.impact]} Vulnerability`;
      break;
    default:
      text = rng.chance(0.5)
        ? `${capitalise(cls.phrase)} in ${name} ${versionPhrase(ctx, rng)} allows ${actor(ctx, rng)} to ${cls.achieves} via ${rng.pick(VECTORS)}.`
        : `A ${cls.phrase} vulnerability in ${name} could allow ${actor(ctx, rng)} to ${cls.achieves}. This vulnerability is due to insufficient validation of user-supplied input.`;
  }
  // Text quirks of real feeds, on a small share of records.
  const q = rng.float();
  if (q < 0.01) text = text.replace(' in ', '\u00a0in ');
  else if (q < 0.015) text = `${text}\\r\\n\\r\\nUsers are advised to upgrade.`;
  else if (q < 0.02) text = `** DISPUTED ** ${text} NOTE: the vendor disputes this because the issue requires administrative access.`;
  return text;
}

/** A CNA title (CVE 5 `containers.cna.title`). */
export function title(ctx: TextContext): string {
  if (ctx.cna.style === 'microsoft') return `${ctx.product.productName} ${IMPACT_TITLES[ctx.cls.impact]} Vulnerability`;
  return `${ctx.product.productName} ${ctx.affectedUpTo} ${titleCase(ctx.cls.phrase)}`;
}

/** NVD's Spanish machine translation (only the shape matters: parsers must pick `en`). */
export function spanish(ctx: TextContext): string {
  return `${SPANISH_CLASS} ${ctx.product.productName} (${ctx.cls.phrase}) ${SPANISH_TAIL}`;
}

export const REJECT_OLD = (replacement: string) =>
  `** REJECT ** DO NOT USE THIS CANDIDATE NUMBER. ConsultIDs: ${replacement}. Reason: This candidate is a duplicate of ${replacement}. Notes: All CVE users should reference ${replacement} instead of this candidate. All references and descriptions in this candidate have been removed to prevent accidental usage.`;
export const REJECT_UNUSED =
  '** REJECT ** DO NOT USE THIS CANDIDATE NUMBER. ConsultIDs: none. Reason: The CNA or individual who requested this candidate did not associate it with any vulnerability. Notes: none.';
export const REJECT_NEW = 'This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.';
