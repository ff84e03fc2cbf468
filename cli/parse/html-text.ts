/**
 * Plain text of an upstream HTML fragment (MSRC's CVRF notes are HTML: `<p>The October 2026
 * security release consists of …</p>`), as the API serves every description: served as is,
 * its tags reached JSON clients as text and the /pulse pages showed them, escaped, in the
 * advisory's description. `html-to-text` reads the HTML as a browser does (entities, `<br>`,
 * lists, links as `text [url]`); no wrapping (the reader's screen wraps), headings not
 * upper-cased (the text is shown as written), whitespace between blocks kept to one blank line.
 */
import { convert } from 'html-to-text';

const OPTIONS = {
  wordwrap: false as const,
  selectors: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
};

export function textOfHtml(html: string): string {
  return convert(html, OPTIONS).trim();
}
