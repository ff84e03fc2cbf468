/**
 * A command-line option that takes a URL of given schemes (`--smtp`, `--redis`, `--public-url`):
 * parsed, or refused with a message naming the option, what was given, and an example.
 */
export function parseOptionUrl(option: string, text: string, schemes: readonly string[], example: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${option}: not a URL: "${text}" (e.g. ${example})`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) {
    throw new Error(`${option}: must be ${schemes.map((s) => `${s}://`).join(' or ')}, got "${url.protocol}"`);
  }
  return url;
}
