/**
 * Free text of a table's cell (a change's why, before → after, a delivery's error, a package's
 * name), wrapped where a reader expects it: a date (2026-11-23, with its time) or a CVE id is
 * kept in one piece (browsers break "2026-11-" over "23" at the line's end), and a token longer
 * than a phone's line (a CVSS vector, a URL) may break after its slashes ("…/PR:L/" over
 * "UI:N/…"), not in the middle of a part. A run of letters no line holds (upstream text: a
 * 300-letter word in an advisory's title, a package's name) breaks anywhere (pulse.css .prose):
 * a table sizes a column to its longest unbreakable word, and one such word set its column
 * thousands of pixels wide and pushed the others out of sight. The text itself (textContent, a
 * copy) is unchanged.
 */
const WHOLE = /(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?|CVE-\d{4}-\d{4,})/;

/**
 * A run with no space, slash or hyphen to break at, longer than a phone's line (about 30
 * letters: none of English's words, few identifiers).
 */
const UNBREAKABLE = /([^\s/-]{31,})/;

function longRuns(text: string) {
  const pieces = text.split(UNBREAKABLE);
  return pieces.map((piece, i) => (i % 2 === 1 ? <span class="prose">{piece}</span> : piece));
}

function slashBreaks(text: string) {
  const parts = text.split(/(?<=\/)/);
  return parts.map((part, i) => (i === 0 ? longRuns(part) : <><wbr />{longRuns(part)}</>));
}

export function Breakable({ text }: { text: string }) {
  const pieces = text.split(WHOLE);
  // split with a capturing group: the odd pieces are the dates and ids.
  return <>{pieces.map((piece, i) => (i % 2 === 1 ? <span class="ident">{piece}</span> : slashBreaks(piece)))}</>;
}
