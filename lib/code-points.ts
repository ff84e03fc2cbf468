/**
 * Lengths as JSON Schema's maxLength counts them: in code points (an emoji is one, not two
 * UTF-16 units). Counted only as far as needed: a text sent to be refused may be megabytes
 * long, and spreading it into an array to count it once ran a replica out of heap.
 */

/** Whether `text` holds more than `max` code points. */
export function codePointsExceed(text: string, max: number): boolean {
  // Each code point is one or two UTF-16 units: the unit count bounds the answer both ways.
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}
