/**
 * Free text of a table's cell (a change's why, before → after, a delivery's error), wrapped
 * where a reader expects it: a date (2026-11-23, with its time) or a CVE id is kept in one
 * piece (browsers break "2026-11-" over "23" at the line's end), and a token longer than a
 * phone's line (a CVSS vector, a URL) may break after its slashes ("…/PR:L/" over "UI:N/…"),
 * not in the middle of a part. The text itself (textContent, a copy) is unchanged.
 */
const WHOLE = /(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?|CVE-\d{4}-\d{4,})/;

function slashBreaks(text: string) {
  const parts = text.split(/(?<=\/)/);
  return parts.map((part, i) => (i === 0 ? part : <><wbr />{part}</>));
}

export function Breakable({ text }: { text: string }) {
  const pieces = text.split(WHOLE);
  // split with a capturing group: the odd pieces are the dates and ids.
  return <>{pieces.map((piece, i) => (i % 2 === 1 ? <span class="ident">{piece}</span> : slashBreaks(piece)))}</>;
}
