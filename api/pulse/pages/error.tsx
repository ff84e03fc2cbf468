/** The HTML error pages: unknown page or record (404), a malformed filter (400), no snapshot (503). */
import { Layout, type Section } from '../layout.tsx';

export interface ErrorPageProps {
  status: number;
  title: string;
  message: string;
  parameter?: string | undefined;
  section?: Section;
  buildId?: string | undefined;
  /** The same page without the filter at fault, every other filter kept (a 400 of a GET). */
  withoutParameter?: string | undefined;
}

export function ErrorPage({ status, title, message, parameter, section, buildId, withoutParameter }: ErrorPageProps) {
  return (
    <Layout title={title} section={section ?? 'none'} buildId={buildId}>
      <h1>{title}</h1>
      <div class="error-box" role="alert" data-status={String(status)} data-parameter={parameter}>
        <p>{message}</p>
        {parameter ? (
          <p>
            The filter at fault: <code>{parameter}</code>.
            {withoutParameter ? (
              <>
                {' '}
                <a href={withoutParameter} id="without-parameter">
                  Show it without {parameter}, the other filters kept
                </a>
                .
              </>
            ) : null}
          </p>
        ) : null}
      </div>
      <p>
        <a href="/pulse">Back to the dashboard</a> · <a href="/pulse/cves">Browse CVEs</a>
      </p>
    </Layout>
  );
}
