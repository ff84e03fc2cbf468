/**
 * A CVE's `/related` answer from the two parts the build stores (cli/build/answers.ts,
 * sql/answers/related_batch.sql): its template, the body's JSON text in which each entry names
 * its sibling as the byte 0x02, the sibling's doc in decimal digits, the byte 0x03; and one
 * brief per CVE, a JSON object left open (its closing brace cut), put in place of that marker.
 * The entry's evidence follows the marker and closes the object. JSON text never holds a raw
 * control character, so a marker cannot be mistaken for text.
 *
 * Stored whole, the bodies come to 2.4 GB at 340,000 CVEs (up to 30 briefs each, a CVE being
 * the sibling of many); as parts, 0.6 GB (templates of 1.5 KB on average, briefs of 0.3 KB).
 * Splicing costs one read of the template (from the OS page cache) and a copy per sibling from
 * the briefs, which the replica holds in memory (113 MB at 340,000 CVEs): a positioned read per
 * brief cost more than the rest of the answer.
 */

/** Where the briefs are read from: a LineFile of related-briefs.ndjson, or a test's map. */
export interface BriefSource {
  /** The brief's bytes; 0 for a CVE no list names. */
  lengthOf(doc: number): number;
  /** Copies the brief of `doc` into `out` at `at`. */
  copyLine(doc: number, out: Buffer, at: number): void;
}

const START = 0x02;
const END = 0x03;
const ZERO = 0x30;

/**
 * The body: `template` with each marker replaced by its sibling's brief. A template without
 * markers (no sibling listed) is the body itself. Throws when a marker is cut or names a CVE
 * without a brief: the serving files are damaged.
 */
export function spliceRelated(template: Buffer, briefs: BriefSource): Buffer {
  let at = template.indexOf(START);
  if (at < 0) return template;
  // First pass: each marker's start, end (past its 0x03) and sibling, and the body's size.
  const marks: number[] = [];
  let size = template.length;
  for (; at >= 0; at = template.indexOf(START, at)) {
    let doc = 0;
    let digit = at + 1;
    for (; template[digit] !== END; digit++) {
      const d = template[digit]! - ZERO;
      if (!(d >= 0 && d <= 9)) throw new Error(`related template: marker at byte ${at} is damaged`);
      doc = doc * 10 + d;
    }
    const length = briefs.lengthOf(doc);
    if (!(length > 0)) throw new Error(`related template names doc ${doc}, which has no brief`);
    marks.push(at, digit + 1, doc);
    size += length - (digit + 1 - at);
    at = digit + 1;
  }
  // Second pass: the template's text between markers, and the briefs read in place.
  const out = Buffer.allocUnsafe(size);
  let written = 0;
  let copied = 0;
  for (let m = 0; m < marks.length; m += 3) {
    const doc = marks[m + 2]!;
    written += template.copy(out, written, copied, marks[m]!);
    briefs.copyLine(doc, out, written);
    written += briefs.lengthOf(doc);
    copied = marks[m + 1]!;
  }
  written += template.copy(out, written, copied);
  if (written !== size) throw new Error(`related splice wrote ${written} bytes, expected ${size}`);
  return out;
}
