/**
 * A command-line option that takes a URL of given schemes (`--smtp`, `--redis`, `--public-url`):
 * parsed, or refused with a message naming the option, what was given, and an example.
 */

/**
 * What was given, as a message may quote it: everything before the last "@" after the scheme
 * (the user name and password) shown as `***`. A URL refused as unparseable is most often one
 * whose password holds a "/" or "@" left unescaped, and the message goes to stderr (cron mail,
 * the journal, a log file): it quoted the SMTP or Redis password whole.
 */
function withoutCredentials(text: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0];
  const at = text.lastIndexOf('@');
  return scheme && at > scheme.length ? `${scheme}***${text.slice(at)}` : text;
}

export function parseOptionUrl(option: string, text: string, schemes: readonly string[], example: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${option}: not a URL: "${withoutCredentials(text)}" (e.g. ${example})`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) {
    throw new Error(`${option}: must be ${schemes.map((s) => `${s}://`).join(' or ')}, got "${url.protocol}"`);
  }
  return url;
}
