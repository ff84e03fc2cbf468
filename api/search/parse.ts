/**
 * Reads the `search` parameter (contract 4.1, DESIGN §6) into what the index can answer. The
 * index (sql/07_search_terms.sql) holds each CVE's text lower-cased, every run of characters
 * other than letters and digits folded to one space; its terms are the words of that text.
 * The query is normalised the same way, so "Use-After-Free" and "use after free" meet.
 *
 *   - Unquoted words form a conjunction: every word must occur, in any order.
 *   - A quoted string is a phrase: its words in that order, adjacent.
 *   - A single token that normalises to several words (a hyphenated compound such as
 *     `use-after-free`, or `CVE-2024-3400`, `node.js`) is a phrase too.
 * Every word of a phrase is also a term of the conjunction: the index narrows the candidates
 * with the terms, the normalised text confirms the phrase.
 */
import { sqlLowerCase } from '../../lib/sql-lower.ts';

/** Words of `text` as the index spells them (same folding as sql/07_search_terms.sql, lower() included). */
export function normaliseWords(text: string): string[] {
  return sqlLowerCase(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}

export interface SearchQuery {
  /** Distinct words that must all occur (the conjunction), in order of first appearance. */
  terms: string[];
  /** Phrases, each as its padded normalised form (` use after free `), a substring test. */
  phrases: string[];
}

/**
 * The searches the API takes, as a JSON Schema pattern (read with the u flag): blank (treated
 * as no search), or holding a letter or digit. parseSearch returns null exactly for the others
 * (`%`, `-`, `""`: nothing to look for), which the list endpoints refuse with a 400; without
 * the pattern the document called them valid.
 */
export const SEARCH_PATTERN = '^\\s*$|[\\p{L}\\p{N}]';

/** Most words one search may hold; a longer one is refused rather than run slowly. */
export const MAX_SEARCH_WORDS = 16;

/**
 * Parses a search. Returns null when it holds no letter or digit at all (nothing to look
 * for); throws an Error (a 400 for the caller) when it holds more than MAX_SEARCH_WORDS words.
 */
export function parseSearch(raw: string): SearchQuery | null {
  const terms: string[] = [];
  const phrases: string[] = [];
  const addTerms = (words: string[]) => {
    for (const w of words) if (!terms.includes(w)) terms.push(w);
  };
  // A quote opens a phrase up to the next quote, or to the end when it is never closed.
  const tokens = /"([^"]*)"?|([^\s"]+)/g;
  for (const m of raw.matchAll(tokens)) {
    const words = normaliseWords(m[1] ?? m[2] ?? '');
    if (words.length === 0) continue;
    if (words.length > 1) {
      const phrase = ` ${words.join(' ')} `;
      if (!phrases.includes(phrase)) phrases.push(phrase);
    }
    addTerms(words);
  }
  if (terms.length === 0) return null;
  if (terms.length > MAX_SEARCH_WORDS) throw new Error(`at most ${MAX_SEARCH_WORDS} distinct words`);
  return { terms, phrases };
}
