/** Parameters of one build (CLI flags, `<raw>/_build.json`, defaults). */
export interface BuildOptions {
  rawDir: string;
  dataDir: string;
  /** Published snapshots to keep (DESIGN §4: 3). */
  keep: number;
  threads?: number;
  memoryLimit?: string;
  /** A package carried by more CVEs than this is no evidence for `same_product` (DESIGN §6: 2,000). */
  relatedProductThreshold: number;
  /** SSVC Mission & Well-being: `low` | `medium` | `high` (DESIGN §5.3: medium). */
  missionWellbeing: 'low' | 'medium' | 'high';
  /** Publish even when a source lost more than half its records (cli/build/shrink-guard.ts). */
  allowShrink?: boolean;
}

export interface BuildResult {
  buildId: string;
  snapshotDir: string;
  /** True when the snapshot was published (data/CURRENT now names it). */
  published: boolean;
  counts: Record<string, number>;
  seconds: number;
  /** Seconds each SQL step of sql/ took, by file name. */
  stepSeconds?: Record<string, number>;
}
