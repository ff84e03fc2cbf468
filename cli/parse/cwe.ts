/**
 * MITRE CWE → `cwe` rows for weaknesses, categories and views (names for `/cwes`, and the way
 * to tell a category such as CWE-1035 from a weakness when a feed lists it).
 *
 * Two formats: the XML catalog `cwec_v*.xml` (or `.xml.zip`; namespace `cwe-6` or `cwe-7`, so
 * elements are matched by local name) and CWE REST API JSON records (PascalCase keys, one
 * record per file or `{"Weaknesses":[…]}` wrappers). The `cwev.json` version record is skipped.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { RawFormatError } from '../../lib/errors.ts';
import type { CweRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { isObject, normalizeCweId, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

type CweKind = 'weakness' | 'category' | 'view';

/** Catalog sections: element holding the list, entry element, kind, element with the text. */
const XML_SECTIONS: ReadonlyArray<{ section: string; entry: string; kind: CweKind; text: string }> = [
  { section: 'Weaknesses', entry: 'Weakness', kind: 'weakness', text: 'Description' },
  { section: 'Categories', entry: 'Category', kind: 'category', text: 'Summary' },
  { section: 'Views', entry: 'View', kind: 'view', text: 'Objective' },
];

/**
 * The catalog is ~18 MB; most of it (examples, mitigations, history, references) is never
 * read, so those elements are kept as raw text instead of being parsed into objects.
 */
const UNREAD_ELEMENTS = [
  'Extended_Description', 'Related_Weaknesses', 'Weakness_Ordinalities', 'Applicable_Platforms', 'Background_Details',
  'Alternate_Terms', 'Modes_Of_Introduction', 'Exploitation_Factors', 'Likelihood_Of_Exploit', 'Common_Consequences',
  'Detection_Methods', 'Potential_Mitigations', 'Demonstrative_Examples', 'Observed_Examples', 'Functional_Areas',
  'Affected_Resources', 'Taxonomy_Mappings', 'Related_Attack_Patterns', 'References', 'Mapping_Notes', 'Notes',
  'Content_History', 'Relationships', 'Members', 'Audience', 'Filter', 'External_References',
];

const ENTRY_ELEMENTS = new Set(XML_SECTIONS.map((s) => s.entry));

function newXmlParser(): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    // A section with a single entry must still be a list.
    isArray: (tagName, _path, _leaf, isAttribute) => !isAttribute && ENTRY_ELEMENTS.has(tagName),
    stopNodes: UNREAD_ELEMENTS.map((e) => `*.${e}`),
  });
}

/** Text of an element that may come back as a string or as `{ '#text': … }` (mixed content). */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (isObject(value) && typeof value['#text'] === 'string') return value['#text'].trim() || null;
  return null;
}

function entryRow(entry: unknown, kind: CweKind, textElement: string, file: string, where: string | undefined): CweRow {
  if (!isObject(entry)) throw new RawFormatError(file, where, 'CWE entry is not an element');
  const cweId = normalizeCweId(entry.ID);
  const name = stringOrNull(entry.Name);
  if (!cweId || !name) throw new RawFormatError(file, cweId ?? where, `CWE ${kind} needs a numeric ID and a Name`);
  return {
    cwe_id: cweId,
    name,
    kind,
    abstraction: stringOrNull(entry.Abstraction),
    status: stringOrNull(entry.Status),
    description: textOf(entry[textElement]),
  };
}

/** The number of the last line of `text`. */
function lastLine(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/**
 * The refusal of an XML text the validator rejects. Elements left open at the end of the text
 * (a truncated download) are reported by fast-xml-parser at line 1 as `Invalid '["a","b"]'
 * found.`: that is said as where the text breaks off, its last line, and what is still open.
 */
function malformedXml(file: string, err: { code: string; msg: string; line: number }, text: string): RawFormatError {
  const open = err.code === 'InvalidXml' ? /^Invalid '(\[[\s\S]*\])' found\.$/.exec(err.msg) : null;
  let names: unknown = null;
  try {
    names = open ? JSON.parse(open[1]!) : null;
  } catch {
    // not the unclosed-elements message after all: reported as the validator words it
  }
  if (Array.isArray(names) && names.length > 0) {
    return new RawFormatError(file, `line ${lastLine(text)}`, `malformed XML: the text ends with ${names.map((n) => `<${String(n)}>`).join(' > ')} still open (a truncated file?)`);
  }
  return new RawFormatError(file, `line ${err.line}`, `malformed XML (${err.msg})`);
}

/** Every weakness, category and view of an XML catalog. */
export function parseCweXml(text: string, file: string): CweRow[] {
  // The parser is lenient about unclosed elements, so a truncated download would silently
  // give a partial list: validate first.
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformedXml(file, valid.err, text);
  let doc: unknown;
  try {
    doc = newXmlParser().parse(text);
  } catch (err) {
    throw new RawFormatError(file, undefined, `malformed XML (${(err as Error).message})`);
  }
  const catalog = isObject(doc) ? doc.Weakness_Catalog : undefined;
  if (!isObject(catalog)) throw new RawFormatError(file, undefined, 'not a CWE catalog: no Weakness_Catalog root element');
  const rows: CweRow[] = [];
  for (const { section, entry, kind, text: textElement } of XML_SECTIONS) {
    const holder = catalog[section];
    if (!isObject(holder)) continue;
    const entries = holder[entry];
    if (!Array.isArray(entries)) continue;
    entries.forEach((e, i) => rows.push(entryRow(e, kind, textElement, file, `${entry} #${i + 1}`)));
  }
  return rows;
}

/** REST API wrappers (`/cwe/weakness/{id}` → `{"Weaknesses":[…]}`) and their kinds. */
const JSON_WRAPPERS: ReadonlyArray<[key: string, kind: CweKind]> = [
  ['Weaknesses', 'weakness'],
  ['Categories', 'category'],
  ['Views', 'view'],
];

/**
 * A bare REST record's kind, by shape: weaknesses carry `Abstraction`/`Structure`, categories a
 * `Summary`, views an `Objective`.
 */
function jsonKind(record: Record<string, unknown>): CweKind | null {
  if ('Abstraction' in record || 'Structure' in record) return 'weakness';
  if ('Objective' in record) return 'view';
  if ('Summary' in record) return 'category';
  if ('Description' in record) return 'weakness';
  return null;
}

const JSON_TEXT: Readonly<Record<CweKind, string>> = { weakness: 'Description', category: 'Summary', view: 'Objective' };

/** Rows of one REST JSON document; [] for the `cwev.json` content-version record. */
export function parseCweJson(json: unknown, file: string): CweRow[] {
  if (!isObject(json)) throw new RawFormatError(file, undefined, 'a CWE JSON document must be an object');
  if ('ContentVersion' in json && !('ID' in json)) return [];
  const wrapped = JSON_WRAPPERS.filter(([key]) => Array.isArray(json[key]));
  if (wrapped.length > 0) {
    return wrapped.flatMap(([key, kind]) =>
      (json[key] as unknown[]).map((r, i) => entryRow(r, kind, JSON_TEXT[kind], file, `${key}[${i}]`)),
    );
  }
  const kind = jsonKind(json);
  if (!kind) throw new RawFormatError(file, stringOrNull(json.ID) ?? undefined, 'not a CWE weakness, category or view record');
  // A REST record is a file of its own: without a usable ID it is named by its Name (the
  // message said "record record"), and with neither the file name alone says which.
  return [entryRow(json, kind, JSON_TEXT[kind], file, stringOrNull(json.Name) ?? undefined)];
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.xml', '.json'];

export const cweParser: SourceParser = {
  key: 'cwe',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const isXml = /\.xml(\.gz)?$/i.test(doc.path);
      const rows = isXml ? parseCweXml(doc.text, doc.path) : parseCweJson(parseJsonDocument(doc), doc.path);
      for (const row of rows) sink.emit('cwe', row);
      records += rows.length;
      progress.tick(rows.length);
    }
    return { files, records };
  },
};
