import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Server and build tests start real processes; two cores, so two forks at most.
    pool: 'forks',
    maxWorkers: 2,
  },
});
