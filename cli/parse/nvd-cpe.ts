/**
 * Vendor and product out of CPE names: the CPE 2.3 formatted strings of NVD configurations
 * (`cpe:2.3:a:vercel:next.js:*:…`) and the CPE 2.2 URIs that CVE 5 / NVD `affected[].cpes`
 * also carry (`cpe:/a:redhat:satellite:6.16::el8`). Used by the NVD and CVE 5 parsers.
 */

export interface CpeName {
  /** `a` (application), `o` (operating system), `h` (hardware). */
  part: string;
  /** Lower case, unescaped (`visual_c++` from `visual_c\+\+`). */
  vendor: string;
  product: string;
  /** Null for the wildcards `*` and `-`. */
  version: string | null;
}

/** A CPE 2.3 formatted string has 13 colon-separated components; 11 follow `cpe:2.3:`. */
const CPE23_PREFIX = 'cpe:2.3:';
const CPE23_FIELDS = 11;
const CPE22_PREFIX = 'cpe:/';

/**
 * Splits the components after `cpe:2.3:` on colons that are not escaped by a backslash and
 * removes the escapes (`\:` → `:`, `\.` → `.`). The plain split is the fast path: almost no
 * NVD name carries a backslash.
 */
function splitCpe23(body: string): string[] {
  if (!body.includes('\\')) return body.split(':');
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body.charAt(i);
    if (ch === '\\' && i + 1 < body.length) {
      current += body.charAt(++i);
    } else if (ch === ':') {
      fields.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  fields.push(current);
  return fields;
}

function isWildcard(value: string): boolean {
  return value === '*' || value === '-' || value === '';
}

/** A CPE 2.3 formatted string → its names; null when it is not one (wrong prefix or arity). */
export function parseCpe23(cpe: string): CpeName | null {
  if (!cpe.startsWith(CPE23_PREFIX)) return null;
  const fields = splitCpe23(cpe.slice(CPE23_PREFIX.length));
  if (fields.length !== CPE23_FIELDS) return null;
  const [part = '', vendor = '', product = '', version = ''] = fields;
  if (isWildcard(vendor) || isWildcard(product)) return null;
  return { part, vendor: vendor.toLowerCase(), product: product.toLowerCase(), version: isWildcard(version) ? null : version };
}

function decodeUriComponentSafe(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A CPE 2.2 URI (`cpe:/a:vendor:product:version…`, percent-encoded) → its names; null if not one. */
export function parseCpe22(cpe: string): CpeName | null {
  if (!cpe.startsWith(CPE22_PREFIX)) return null;
  const [part = '', vendor = '', product = '', version = ''] = cpe.slice(CPE22_PREFIX.length).split(':');
  if (part === '' || isWildcard(vendor) || isWildcard(product)) return null;
  return {
    part,
    vendor: decodeUriComponentSafe(vendor).toLowerCase(),
    product: decodeUriComponentSafe(product).toLowerCase(),
    version: isWildcard(version) ? null : decodeUriComponentSafe(version),
  };
}

/** Either CPE form → its names; null when the text is neither. */
export function parseCpe(cpe: string): CpeName | null {
  return cpe.startsWith(CPE23_PREFIX) ? parseCpe23(cpe) : parseCpe22(cpe);
}
