/**
 * The MITRE CWE catalog (`cwec_v4.19.xml`, namespace `cwe-7`): every weakness, category and
 * view the corpus names, in the real element layout (Weakness → Description, Category →
 * Summary, View → Objective).
 */
import { join } from 'node:path';
import { CWE_ENTRIES, type CweEntry } from '../cwes.ts';
import { xmlEscape } from '../format.ts';
import { type OutputStats, writeWhole } from '../output.ts';

function weakness(e: CweEntry): string {
  const text = `The product is affected by the weakness "${e.name}": under attacker control it can compromise the confidentiality, integrity or availability of the system.`;
  return (
    `      <Weakness ID="${e.id}" Name="${xmlEscape(e.name)}" Abstraction="${e.abstraction}" Structure="${e.abstraction === 'Compound' ? 'Composite' : 'Simple'}" Status="${e.status}">\n` +
    `         <Description>${xmlEscape(text)}</Description>\n` +
    `      </Weakness>\n`
  );
}

function category(e: CweEntry): string {
  return (
    `      <Category ID="${e.id}" Name="${xmlEscape(e.name)}" Status="${e.status}">\n` +
    `         <Summary>${xmlEscape(`Weaknesses in this category are related to "${e.name}".`)}</Summary>\n` +
    `      </Category>\n`
  );
}

function view(e: CweEntry): string {
  return (
    `      <View ID="${e.id}" Name="${xmlEscape(e.name)}" Type="Graph" Status="${e.status}">\n` +
    `         <Objective>${xmlEscape(`This view (${e.name}) organizes weaknesses for a particular audience.`)}</Objective>\n` +
    `      </View>\n`
  );
}

export function cweCatalogXml(): string {
  const of = (kind: CweEntry['kind']) => CWE_ENTRIES.filter((e) => e.kind === kind);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Weakness_Catalog Name="CWE" Version="4.19" Date="2025-12-11" xmlns="http://cwe.mitre.org/cwe-7" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xhtml="http://www.w3.org/1999/xhtml" xsi:schemaLocation="http://cwe.mitre.org/cwe-7 http://cwe.mitre.org/data/xsd/cwe_schema_v7.2.xsd">\n' +
    `   <Weaknesses>\n${of('weakness').map(weakness).join('')}   </Weaknesses>\n` +
    `   <Categories>\n${of('category').map(category).join('')}   </Categories>\n` +
    `   <Views>\n${of('view').map(view).join('')}   </Views>\n` +
    '</Weakness_Catalog>\n'
  );
}

export async function writeCwe(dir: string): Promise<OutputStats> {
  const stats = await writeWhole(join(dir, 'cwec_v4.19.xml'), cweCatalogXml());
  return { entries: CWE_ENTRIES.length, bytes: stats.bytes };
}
