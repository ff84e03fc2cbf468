/**
 * The frame of every /pulse page: one `h1` (given by the page), a skip link, the site
 * navigation with the current page marked, the stylesheet and the enhancement script served
 * by the server itself. Everything rendered through JSX is escaped by hono/jsx.
 */
import type { Child } from 'hono/jsx';
import { ASSETS } from './assets.ts';

export type Section = 'dashboard' | 'cves' | 'advisories' | 'subscribe' | 'none';

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'dashboard', href: '/pulse', label: 'Dashboard' },
  { section: 'cves', href: '/pulse/cves', label: 'CVEs' },
  { section: 'advisories', href: '/pulse/advisories', label: 'Advisories' },
  { section: 'subscribe', href: '/pulse/subscribe', label: 'Subscribe' },
];

export interface LayoutProps {
  title: string;
  section: Section;
  /** The snapshot the page was read from, shown in the footer. */
  buildId?: string | undefined;
  children?: Child;
}

export function Layout({ title, section, buildId, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${title} · vulnintel pulse`}</title>
        <link rel="stylesheet" href={ASSETS['pulse.css']!.url} />
        {/* No icon of its own: said so, or every page load asks for /favicon.ico and logs a 404. */}
        <link rel="icon" href="data:," />
        <link rel="alternate" type="application/atom+xml" title="All changes (Atom)" href="/pulse/feeds/changes.atom" />
        <script src={ASSETS['pulse.js']!.url} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <div class="inner">
            <a class="brand" href="/pulse">vulnintel pulse</a>
            <nav class="primary" aria-label="Main">
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={item.section === section ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
        <footer class="site">
          <div class="inner">
            {buildId ? <span>Snapshot <code>{buildId}</code>. </span> : null}
            <a href="/api/v1/docs">JSON API</a> · <a href="/pulse/feeds/changes.atom">Atom feed of changes</a>
          </div>
        </footer>
      </body>
    </html>
  );
}
