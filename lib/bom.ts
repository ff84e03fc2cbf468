/**
 * A byte order mark (U+FEFF) at the start of a UTF-8 file is no part of its text: Windows tools
 * and some exporters write one before the JSON, and JSON.parse refused it as an unexpected token
 * (quoted as an invisible character). Every reader of a file's text strips it through this.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
