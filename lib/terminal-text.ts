/**
 * Text written to a terminal (the `scan` and `sql` tables). Upstream text and a third party's
 * SBOM may hold control characters: an ESC sequence can move the cursor, erase a line or set
 * the window title, so a crafted package name could hide a finding from the one reading the
 * table. Every C0 control (tab and newline included: a table cell is one line), DEL and C1
 * control is shown as its `\uXXXX` escape instead, so it is seen and does nothing. So is each
 * bidirectional embedding, override and isolate control (lib/html.ts BIDI_CONTROLS): a terminal
 * that lays out right-to-left text reorders what follows one, so a package name could show
 * another version or name than it holds.
 */
import { BIDI_CONTROLS } from './html.ts';

const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`, 'g');

export function printable(text: string): string {
  return text.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
