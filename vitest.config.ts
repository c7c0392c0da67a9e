import { defineConfig } from 'vitest/config';

// `.ci/run` sets GEOLAB_VITEST_REPORT to read the pass/fail counts from vitest's JSON report.
const report = process.env.GEOLAB_VITEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    reporters: report ? ['default', 'json'] : ['default'],
    outputFile: report ? { json: report } : undefined,
  },
});
