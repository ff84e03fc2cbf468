/**
 * Lower case as DuckDB's lower() writes it: each code point on its own, by its simple mapping.
 * The search index (sql/07_search_terms.sql) and the change filter's SQL (api/queries/changes.ts)
 * are lower-cased that way, so the words looked for in them must be too. JavaScript's
 * toLowerCase() differs in two places only: `İ` (U+0130) becomes two code points, `i` and a
 * combining dot (which the search folding turns into a word break: `İSTANBUL` was the words `i`
 * and `stanbul`), and a capital sigma ending a word becomes `ς` where lower() writes `σ`.
 */
export function sqlLowerCase(text: string): string {
  return text.replace(/[\u0130\u03a3]/g, (ch) => (ch === '\u0130' ? 'i' : '\u03c3')).toLowerCase();
}
