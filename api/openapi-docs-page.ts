/**
 * The HTML of `/api/v1/docs`: the OpenAPI document embedded as JSON, rendered by a small script
 * in the page itself (endpoints by tag, parameters, responses, schemas, and a "try it" link
 * for each GET). No CDN, no external font or script: it works offline.
 */
import { createHash } from 'node:crypto';

/** JSON safe inside a <script> element (no `</script>`, no HTML comment openers). */
function embeddable(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:1.2rem 2rem}header h1{margin:0;font-size:1.4rem}
header p{margin:.4rem 0 0;color:#c9cfdb;max-width:70rem}main{padding:1rem 2rem 3rem;max-width:75rem}
h2{margin:2rem 0 .5rem;border-bottom:1px solid #d5d9e0}details{background:#fff;border:1px solid #d5d9e0;border-radius:6px;margin:.5rem 0}
summary{cursor:pointer;padding:.6rem .8rem;font-family:ui-monospace,monospace}summary .m{display:inline-block;min-width:3.5rem;font-weight:700;color:#0a6b3d}
summary .s{font-family:system-ui,sans-serif;color:#555;margin-left:.6rem}.body{padding:0 1rem 1rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;border-bottom:1px solid #eceef2;padding:.3rem .4rem;vertical-align:top}
code{font-family:ui-monospace,monospace;background:#eef0f4;padding:0 .25rem;border-radius:3px}a{color:#1f5fbf}
.req{color:#b3261e;font-size:.8rem}.try{margin:.6rem 0}.try input{width:60%;font-family:ui-monospace,monospace}
header a{color:#9cc2ff}
`;

const SCRIPT = `
const doc = JSON.parse(document.getElementById('openapi').textContent);
const el = (tag, attrs = {}, ...kids) => { const e = document.createElement(tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); for (const k of kids) e.append(k); return e; };
const refName = (s) => s && s.$ref ? s.$ref.split('/').pop() : null;
const typeOf = (s) => { if (!s) return ''; const r = refName(s); if (r) return r; if (s.type === 'array') return typeOf(s.items) + '[]'; if (s.enum) return s.enum.join(' | '); if (s.anyOf) return s.anyOf.map(typeOf).join(' | '); return [].concat(s.type || 'object').join(' | ') + (s.format ? ' (' + s.format + ')' : ''); };
const typeCell = (s) => { const r = refName(s) || (s && s.type === 'array' && refName(s.items)); const td = el('td'); if (r) td.append(el('a', { href: '#schema-' + r }, typeOf(s))); else td.append(typeOf(s)); return td; };
document.getElementById('intro').textContent = doc.info.description || '';
document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
const main = document.querySelector('main');
const byTag = new Map();
for (const [path, ops] of Object.entries(doc.paths || {})) for (const [method, op] of Object.entries(ops)) {
  const tag = (op.tags && op.tags[0]) || 'Other'; if (!byTag.has(tag)) byTag.set(tag, []); byTag.get(tag).push([path, method, op]);
}
for (const [tag, ops] of byTag) {
  main.append(el('h2', {}, tag));
  for (const [path, method, op] of ops) {
    const body = el('div', { class: 'body' });
    if (op.description) body.append(el('p', {}, op.description));
    const params = op.parameters || [];
    if (params.length) {
      const t = el('table', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'in'), el('th', {}, 'type'), el('th', {}, 'description')));
      for (const p of params) {
        const s = p.schema || {};
        const extra = [s.default !== undefined ? 'default ' + JSON.stringify(s.default) : '', s.minimum !== undefined ? 'min ' + s.minimum : '', s.maximum !== undefined ? 'max ' + s.maximum : '', s.example !== undefined ? 'e.g. ' + JSON.stringify(s.example) : ''].filter(Boolean).join(', ');
        const name = el('td', {}, el('code', {}, p.name)); if (p.required) name.append(' ', el('span', { class: 'req' }, 'required'));
        t.append(el('tr', {}, name, el('td', {}, p.in), typeCell(s), el('td', {}, (p.description || s.description || '') + (extra ? ' (' + extra + ')' : ''))));
      }
      body.append(t);
    }
    const rt = el('table', {}, el('tr', {}, el('th', {}, 'status'), el('th', {}, 'body'), el('th', {}, 'meaning')));
    for (const [status, declared] of Object.entries(op.responses || {})) {
      const r = refName(declared) ? ((doc.components && doc.components.responses) || {})[refName(declared)] || {} : declared;
      const content = r.content ? Object.entries(r.content)[0] : null;
      rt.append(el('tr', {}, el('td', {}, status), content ? typeCell(content[1].schema) : el('td', {}, '-'), el('td', {}, r.description || '')));
    }
    body.append(el('h4', {}, 'Responses'), rt);
    if (method === 'get') {
      const example = path.replace(/\\{(\\w+)\\}/g, (_, n) => { const p = params.find((q) => q.name === n); return (p && p.schema && p.schema.example) || 'CVE-2024-3400'; });
      const input = el('input', { value: example }); const go = el('button', {}, 'GET');
      go.onclick = () => window.open(input.value, '_blank');
      body.append(el('div', { class: 'try' }, 'Try: ', input, ' ', go));
    }
    main.append(el('details', {}, el('summary', {}, el('span', { class: 'm' }, method.toUpperCase()), path, el('span', { class: 's' }, op.summary || '')), body));
  }
}
const schemas = (doc.components && doc.components.schemas) || {};
if (Object.keys(schemas).length) main.append(el('h2', {}, 'Schemas'));
for (const [name, s] of Object.entries(schemas)) {
  const body = el('div', { class: 'body' });
  if (s.description) body.append(el('p', {}, s.description));
  const t = el('table', {}, el('tr', {}, el('th', {}, 'member'), el('th', {}, 'type'), el('th', {}, 'description')));
  // allOf (a schema extending another, e.g. RateLimitError): the members of every part.
  const parts = [s, ...(s.allOf || []).map((p) => (refName(p) ? schemas[refName(p)] || {} : p))];
  const required = new Set(parts.flatMap((p) => p.required || []));
  for (const [prop, ps] of Object.entries(Object.assign({}, ...parts.map((p) => p.properties || {})))) {
    const n = el('td', {}, el('code', {}, prop)); if (!required.has(prop)) n.append(' ', el('span', { class: 's' }, 'optional'));
    t.append(el('tr', {}, n, typeCell(ps), el('td', {}, ps.description || '')));
  }
  body.append(t);
  main.append(el('details', { id: 'schema-' + name }, el('summary', {}, name), body));
}
`;

export function renderDocsPage(document: unknown): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>vulnintel API</title><style>${STYLE}</style></head>
<body><header><h1 id="title">vulnintel API</h1><p id="intro"></p><p><a href="/api/v1/openapi.json">openapi.json</a></p></header>
<main></main>
<script type="application/json" id="openapi">${embeddable(document)}</script>
<script>${SCRIPT}</script>
</body></html>`;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's Content-Security-Policy: its one script and one stylesheet are inline (the page
 * works offline, from one answer), so they are allowed by their hashes and nothing else runs or
 * loads: an injected script or style (were the document's text ever to escape its JSON) does
 * not, and no other site frames the page. The JSON data block is not a script to CSP.
 */
export const DOCS_PAGE_CSP = `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
