/** PyPI: PEP 440 (epochs, pre/post/dev releases, local versions), by `@renovatebot/pep440`. */
import { compare, parse } from '@renovatebot/pep440';
import { orderOf, type VersionOrder } from './scheme.ts';

export const PEP440: VersionOrder = orderOf(
  'pep440',
  (v) => (parse(v) ? v : null),
  (a, b) => compare(a, b),
);
