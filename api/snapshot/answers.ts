/**
 * The answers the build stored per CVE and per vendor advisory (cli/build/answers.ts, written by
 * cli/build/serving.ts): `/cves/{id}/enrichment`, `/references` by doc, `/related` by doc
 * as a template and briefs spliced here (related-splice.ts), and
 * `/vendor-advisories/{vendor}/{id}` by key. A route sends these bytes as they are: they are
 * exactly what the per-request queries would answer, computed once for the snapshot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PER_CVE_ANSWERS,
  SERVING_ADVISORIES,
  SERVING_ADVISORY_KEYS,
  SERVING_ANSWER_LENGTHS,
  SERVING_RELATED_BRIEFS,
  SERVING_RELATED_TEMPLATES,
  type PerCveAnswer,
} from '../../lib/serving-layout.ts';
import { readFlatColumns } from '../../lib/flat-columns.ts';
import { LineFile } from './line-file.ts';
import { spliceRelated } from './related-splice.ts';

const ASCII = /^[\x00-\x7f]*$/;

/** How the advisory endpoint compares keys (lower() in its SQL), for ASCII text. */
function keyOf(vendor: string, advisoryId: string): string {
  return `${vendor.toLowerCase()}\n${advisoryId.toLowerCase()}`;
}

export class StoredAnswers {
  private constructor(
    private readonly perCve: Record<PerCveAnswer, LineFile>,
    private readonly relatedTemplates: LineFile,
    private readonly relatedBriefs: LineFile,
    private readonly advisories: LineFile,
    /** Case-folded key → the stored advisories it names (ids as stored, ascending), by line. */
    private readonly advisoryIndex: Map<string, { advisoryId: string; line: number }[]>,
  ) {}

  static open(servingDir: string): StoredAnswers {
    const lengths = readFlatColumns(join(servingDir, SERVING_ANSWER_LENGTHS)) as Record<string, Uint32Array>;
    const opened: LineFile[] = [];
    try {
      const perCve = {} as Record<PerCveAnswer, LineFile>;
      for (const kind of PER_CVE_ANSWERS) {
        const file = new LineFile(join(servingDir, `${kind}.ndjson`), lengths[`${kind}_bytes`]!);
        opened.push(file);
        perCve[kind] = file;
      }
      const relatedTemplates = new LineFile(join(servingDir, SERVING_RELATED_TEMPLATES), lengths.related_template_bytes!);
      opened.push(relatedTemplates);
      // Held in memory (113 MB at 340,000 CVEs): an answer splices some 30 briefs.
      const relatedBriefs = new LineFile(join(servingDir, SERVING_RELATED_BRIEFS), lengths.related_brief_bytes!, true);
      opened.push(relatedBriefs);
      for (const file of [relatedTemplates, relatedBriefs]) {
        if (file.size !== perCve.enrichment.size) throw new Error(`${file.path}: ${file.size} lines for ${perCve.enrichment.size} CVEs`);
      }
      const advisories = new LineFile(join(servingDir, SERVING_ADVISORIES), lengths.advisory_bytes!);
      opened.push(advisories);
      const index = new Map<string, { advisoryId: string; line: number }[]>();
      const keys = readFileSync(join(servingDir, SERVING_ADVISORY_KEYS), 'utf8').split('\n');
      keys.pop();
      if (keys.length !== advisories.size) throw new Error(`${servingDir}: ${keys.length} advisory keys for ${advisories.size} advisories`);
      keys.forEach((line, i) => {
        const [vendor, advisoryId] = JSON.parse(line) as [string, string];
        // Text beyond ASCII may fold differently in JS and in SQL: such ids are asked in SQL.
        if (!ASCII.test(vendor) || !ASCII.test(advisoryId)) return;
        const key = keyOf(vendor, advisoryId);
        let entries = index.get(key);
        if (!entries) index.set(key, (entries = []));
        entries.push({ advisoryId, line: i });
      });
      return new StoredAnswers(perCve, relatedTemplates, relatedBriefs, advisories, index);
    } catch (err) {
      for (const file of opened) file.close();
      throw err;
    }
  }

  /** The stored answer of one CVE (by doc). */
  forCve(kind: PerCveAnswer, doc: number): Buffer {
    return this.perCve[kind].bytes(doc);
  }

  /** The stored `/related` answer of one CVE (by doc): its template with the siblings' briefs. */
  related(doc: number): Buffer {
    return spliceRelated(this.relatedTemplates.bytes(doc), this.relatedBriefs);
  }

  /**
   * The stored detail of a vendor advisory as the endpoint finds it (vendor and id in any case;
   * the id spelled exactly wins, else the first in order), or undefined when none is stored
   * under that key or the key is beyond ASCII: the caller then asks the snapshot (a 404 or a
   * 503 naming an unreadable table comes from there).
   */
  forAdvisory(vendor: string, advisoryId: string): Buffer | undefined {
    if (!ASCII.test(vendor) || !ASCII.test(advisoryId)) return undefined;
    const entries = this.advisoryIndex.get(keyOf(vendor, advisoryId));
    if (!entries) return undefined;
    let best = entries[0]!;
    for (const entry of entries) {
      if (entry.advisoryId === advisoryId) {
        best = entry;
        break;
      }
      if (entry.advisoryId < best.advisoryId) best = entry;
    }
    return this.advisories.bytes(best.line);
  }

  close(): void {
    for (const file of Object.values(this.perCve)) file.close();
    this.relatedTemplates.close();
    this.relatedBriefs.close();
    this.advisories.close();
  }
}
