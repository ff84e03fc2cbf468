/** Escaping for HTML built by hand (pages, e-mail): every upstream or user text goes through it. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The bidirectional embedding, override and isolate controls, U+202A–U+202E and U+2066–U+2069
 * (as the body of a character class). In upstream text they reorder what follows them on screen
 * (the "Trojan Source" trick, CVE-2021-42574): a title can show another file name, version or
 * address than the one it holds. Whatever the service renders for people drops them: e-mail
 * HTML (escapeHtml), the text part (lib/pulse/message.ts oneLine), the Atom feed
 * (api/routes/pulse-feeds.ts) and every /pulse page (api/pulse/page-response.ts documentOf).
 */
export const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069';
const BIDI_CONTROL = new RegExp(`[${BIDI_CONTROLS}]`, 'g');

/** Text without bidirectional controls (see BIDI_CONTROLS). */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROL, '');
}

/** Text safe in HTML element content and in quoted attribute values, its bidirectional controls dropped. */
export function escapeHtml(text: string): string {
  return withoutBidiControls(text).replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}
