/**
 * A CVSS vector in words: each metric the vector states, named as the FIRST specification
 * names it ("Attack Vector: Network"), read with ae-cvss-calculator (the library the build
 * scores vectors with). Metrics left at "Not Defined" are omitted; a vector the library cannot
 * read gives null and the page shows the vector as text only.
 */
import cvssCalculator from 'ae-cvss-calculator';

interface ComponentValue {
  name: string;
  shortName: string;
  description: string;
}
interface Component {
  name: string;
  /** CVSS 4.0 names impacts per system: "Vulnerable System", "Subsequent System". */
  subCategory?: string;
  shortName: string;
  values: ComponentValue[];
}
interface Vector {
  getRegisteredComponents(): Map<{ name: string }, Component[]>;
  getComponent(component: Component): ComponentValue | undefined;
}
type VectorCtor = new (vector: string) => Vector;

const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator as unknown as Record<'Cvss2' | 'Cvss3P0' | 'Cvss3P1' | 'Cvss4P0', VectorCtor>;

export interface DecodedMetric {
  /** `AV` */
  key: string;
  /** `Attack Vector` */
  metric: string;
  /** `Network` */
  value: string;
  description: string;
}

export interface DecodedVector {
  version: string;
  vector: string;
  metrics: DecodedMetric[];
}

function ctorOf(vector: string): { ctor: VectorCtor; version: string } {
  if (vector.startsWith('CVSS:4.0/')) return { ctor: Cvss4P0, version: '4.0' };
  if (vector.startsWith('CVSS:3.1/')) return { ctor: Cvss3P1, version: '3.1' };
  if (vector.startsWith('CVSS:3.0/')) return { ctor: Cvss3P0, version: '3.0' };
  return { ctor: Cvss2, version: '2.0' };
}

export function decodeVector(vector: string | null | undefined): DecodedVector | null {
  if (!vector) return null;
  const stated = new Set(
    vector
      .split('/')
      .map((part) => part.split(':')[0]!)
      .filter((key) => key !== 'CVSS'),
  );
  try {
    const { ctor, version } = ctorOf(vector);
    const parsed = new ctor(vector);
    const metrics: (DecodedMetric & { subCategory: string | undefined })[] = [];
    for (const components of parsed.getRegisteredComponents().values()) {
      for (const component of components) {
        if (!stated.has(component.shortName)) continue;
        const value = parsed.getComponent(component);
        if (!value || value.shortName === 'X') continue;
        metrics.push({ key: component.shortName, metric: component.name, subCategory: component.subCategory, value: value.name, description: value.description });
      }
    }
    // CVSS 4.0 names the same impact twice (vulnerable and subsequent system): say which.
    const seen = new Map<string, number>();
    for (const m of metrics) seen.set(m.metric, (seen.get(m.metric) ?? 0) + 1);
    const named = metrics.map(({ subCategory, ...m }) => ((seen.get(m.metric) ?? 0) > 1 && subCategory ? { ...m, metric: `${m.metric} (${subCategory})` } : m));
    return named.length > 0 ? { version, vector, metrics: named } : null;
  } catch {
    return null;
  }
}
