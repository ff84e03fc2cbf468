/**
 * OpenAPI shapes of the package answers (documentation only: bodies are serialised, never
 * validated on the way out). Field meanings: lib/packages/check.ts.
 */
import { z } from '@hono/zod-openapi';

const BranchFields = {
  introduced: z.string().nullable().openapi({ description: 'null or "0": from the first version.' }),
  fixed: z.string().nullable().openapi({ description: 'First version outside the range; null where no fix is on record.' }),
  last_affected: z.string().nullable().openapi({ description: 'Last version inside the range (inclusive).' }),
  limit: z.string().nullable().openapi({ description: 'OSV `limit`: versions at or above it are outside the range.' }),
  range_type: z.string().nullable().openapi({ description: 'SEMVER, ECOSYSTEM, GIT, or VERSIONS for a match of the explicit `versions` list.' }),
  advisory_id: z.string().nullable().openapi({ description: 'The OSV/GHSA record that published the range.' }),
  source: z.string().nullable().openapi({ description: 'The OSV database (ghsa, go, debian, …).' }),
};

const RiskFields = {
  cve_id: z.string().nullable().openapi({
    description:
      'null for an OSV/GHSA advisory that names no CVE of the snapshot (no CVE alias, or only CVEs not yet published): `advisory_ids` names it (with the records aliased with it, such as its MAL- or PYSEC- twin), and its figures are scored from those records alone (DESIGN §5: their GHSA CVSS vector, else their GHSA severity band; never in KEV, no EPSS).',
  }),
  service_risk: z.number().openapi({ description: 'The order of every list: service risk, then KEV, then EPSS, then the CVE id (advisories that name no CVE after the CVEs of equal figures).' }),
  service_score: z.number(),
  service_severity: z.string(),
  score_assessed: z.boolean(),
  kev: z.boolean().openapi({ description: 'Listed in CISA KEV.' }),
  epss_score: z.number().nullable(),
  ecosystem: z.string().openapi({ description: 'The ecosystem as the advisory spells it (with the distribution release).' }),
  package_name: z.string(),
  advisory_ids: z.array(z.string()),
};

const UnjudgedGroup = z
  .object({
    reason: z.string().openapi({ description: 'Why these advisories could not be judged at the version asked.' }),
    ecosystem: RiskFields.ecosystem,
    package_name: RiskFields.package_name,
    cves: z
      .array(z.object({ cve_id: RiskFields.cve_id, service_risk: RiskFields.service_risk, service_severity: RiskFields.service_severity, kev: RiskFields.kev, epss_score: RiskFields.epss_score, advisory_ids: RiskFields.advisory_ids }))
      .openapi({ description: 'By service risk, then KEV, then EPSS. The whole record: GET /cves/{cve_id} or /cves/batch (an advisory that names no CVE: cve_id null, its ids in advisory_ids).' }),
  })
  .openapi('UnjudgedAdvisories', { description: 'Advisories of one package spelling that could not be judged for one reason. Groups come by their riskiest CVE.' });

export const VersionAnswerSchema = z
  .object({
    ecosystem: z.string(),
    name: z.string(),
    version: z.string(),
    version_order: z.string().openapi({ description: 'The version order used (semver, pep440, maven, dpkg, apk, rpm, …).' }),
    affected: z.boolean(),
    vulnerabilities: z.array(
      z.object({
        ...RiskFields,
        matched: z.array(z.object({ ...BranchFields, why: z.string() })).openapi({ description: 'The ranges that hold the version, and why.' }),
        fixed_in: z.string().nullable().openapi({ description: "The smallest fix of this CVE's own ranges above the version." }),
      }),
    ),
    upgrade: z
      .array(z.object({ ecosystem: z.string(), to: z.string().nullable(), statement: z.string(), also_affected_by: z.array(z.string()).openapi({ description: 'Other CVEs of the package (an advisory that names no CVE: its id) whose ranges hold `to`.' }) }))
      .openapi({ description: 'Per ecosystem (release) matched: the smallest fixed version outside every matched range, or null with a plain statement that none is on record.' }),
    not_comparable: z.array(UnjudgedGroup).openapi({ description: 'Advisories with GIT (commit) ranges only, grouped by reason and package spelling.' }),
    undetermined: z.array(UnjudgedGroup).openapi({ description: 'Advisories that could not be judged (no ranges on record, a bound the order cannot read), grouped by reason and package spelling; never counted as not affected.' }),
    not_affected_count: z.number().int(),
  })
  .openapi('PackageVersionAnswer');

export const ListAnswerSchema = z
  .object({
    ecosystem: z.string(),
    name: z.string(),
    version: z.null(),
    advisories: z.array(
      z.object({
        ...RiskFields,
        source: z.string(),
        fixed_branches: z.array(z.object(BranchFields)).nullable().openapi({ description: 'null: ranges never loaded (CVE record only); []: none on record.' }),
        versions: z.array(z.string()),
      }),
    ),
  })
  .openapi('PackageAdvisories');

export const PackageAnswerSchema = z.union([VersionAnswerSchema, ListAnswerSchema]);

export const PurlAnswerSchema = z.union([VersionAnswerSchema.extend({ purl: z.string() }), ListAnswerSchema.extend({ purl: z.string() })]);

export const PackageBatchSchema = z
  .object({
    requested: z.number().int().openapi({ description: 'Distinct purls answered.' }),
    results: z.array(
      z.union([
        VersionAnswerSchema.extend({ purl: z.string() }),
        ListAnswerSchema.extend({ purl: z.string() }),
        z.object({ purl: z.string(), error: z.object({ code: z.literal('INVALID_PARAMETER'), message: z.string() }) }),
      ]),
    ),
  })
  .openapi('PackageBatch');

export const CveBatchSchema = z
  .object({
    requested: z.number().int().openapi({ description: 'Distinct ids asked.' }),
    cves: z.array(z.record(z.string(), z.unknown())).openapi({ description: 'The merged CVE records (as /cves/{id}), in the order asked.' }),
    unknown: z.array(z.string()).openapi({ description: 'Ids not in the snapshot, in the order asked.' }),
  })
  .openapi('CveBatch');
