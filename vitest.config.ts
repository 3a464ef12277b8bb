import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{contracts,command,projections,ingest,query,infra,tests}/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['tests/harness/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Real engines are heavy on a 2-core machine: run test files one at a time.
    fileParallelism: false,
  },
});
