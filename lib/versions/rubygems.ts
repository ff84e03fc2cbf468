/** RubyGems: Gem::Version (`1.0.a` < `1.0`, segments compared numerically or lexically), by `@renovatebot/ruby-semver`. */
import { Version } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { orderOf, type VersionOrder } from './scheme.ts';

/**
 * A parsed version whose canonical segments are computed once: the library's `compare` derives
 * them again on every call (a regex scan and three array copies per side), and the order
 * compares the same bounds over and over.
 */
function createVersion(v: string): Version | null {
  if (!Version.isCorrect(v)) return null;
  const version = Version.create(v)!;
  const segments = version.canonicalSegments();
  version.canonicalSegments = () => segments;
  return version;
}

export const GEM: VersionOrder = orderOf('rubygems', createVersion, (a, b) => a.compare(b));
