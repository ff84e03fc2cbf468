/**
 * What names a vendor advisory in the API (`/vendor-advisories/{vendor}/{advisory_id}`): the
 * route validates its path with these, and the build refuses an advisory it could not serve
 * (cli/parse/csaf.ts, msrc.ts). One definition: an advisory the build publishes and links must
 * be one the API answers for, not a 400.
 */

/** An advisory source: `redhat`, `cisco`, `microsoft` (any case in a request). */
export const ADVISORY_VENDOR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const ADVISORY_VENDOR_MESSAGE = 'expected an advisory source such as redhat, cisco, microsoft (letters, digits, ".", "_", "-"; at most 64)';

/**
 * An advisory id as the vendor writes it (`RHSA-2024:6163`, `cisco-sa-…`): 1 to 200 UTF-16 units
 * (the route's length check counts them so), none of them a control character. A line break in
 * an id would also split a notification's header lines.
 */
export const ADVISORY_ID_MAX_LENGTH = 200;
export const ADVISORY_ID = /^[^\u0000-\u001f\u007f]+$/;
export const ADVISORY_ID_MESSAGE = `expected an advisory id of at most ${ADVISORY_ID_MAX_LENGTH} printable characters`;

export function isAdvisoryId(id: string): boolean {
  return id.length <= ADVISORY_ID_MAX_LENGTH && ADVISORY_ID.test(id);
}
