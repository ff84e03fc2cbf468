/** RubyGems: Gem::Version (`1.0.a` < `1.0`, segments compared numerically or lexically), by `@renovatebot/ruby-semver`. */
import { Version } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { orderOf, type VersionOrder } from './scheme.ts';

export const GEM: VersionOrder = orderOf(
  'rubygems',
  (v) => (Version.isCorrect(v) ? Version.create(v) : null),
  (a, b) => a.compare(b),
);
