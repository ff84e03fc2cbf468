/**
 * A CVE's affected packages and the fix of each range (`/pulse/cves/{id}`): one row per range,
 * headed by the package's name (upstream text: a name no line holds breaks, components/breakable.tsx).
 */
import type { AffectedPackage } from '../../queries/enrichment.ts';
import { Breakable } from './breakable.tsx';

export function AffectedPackages({ packages }: { packages: AffectedPackage[] }) {
  return (
    <div class="table-wrap">
      <table id="packages" class="stack">
        <thead>
          <tr>
            <th scope="col">Package</th>
            <th scope="col">Affected from</th>
            <th scope="col">Fixed in</th>
            <th scope="col" class="hide-sm">
              Source
            </th>
          </tr>
        </thead>
        <tbody>
          {packages.flatMap((p) => {
            const name = `${p.ecosystem ? `${p.ecosystem} ` : ''}${p.package_name}`;
            if (!p.fixed_branches || p.fixed_branches.length === 0) {
              return [
                <tr>
                  <th scope="row">
                    <Breakable text={name} />
                  </th>
                  <td colspan={2} data-label="Fixed in">
                    {p.fixed_branches === null ? 'No version ranges on record' : 'No range on record'}
                    {p.fixed_version ? <>; fixed in <span class="ident">{p.fixed_version}</span></> : ''}
                  </td>
                  <td class="hide-sm" data-label="Source">{p.source}</td>
                </tr>,
              ];
            }
            return p.fixed_branches.map((b) => (
              <tr>
                <th scope="row">
                  <Breakable text={name} />
                </th>
                <td data-label="Affected from">
                  <span class="ident">{b.introduced ?? '—'}</span>
                </td>
                <td data-label="Fixed in">
                  {b.fixed ? (
                    <span class="ident">{b.fixed}</span>
                  ) : b.last_affected ? (
                    <>
                      not fixed (last affected <span class="ident">{b.last_affected}</span>)
                    </>
                  ) : (
                    'no fix yet'
                  )}
                </td>
                <td class="hide-sm" data-label="Source">
                  <span class="ident">{b.advisory_id ?? b.source ?? p.source}</span>
                </td>
              </tr>
            ));
          })}
        </tbody>
      </table>
    </div>
  );
}
