import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'tests/.engines/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      // No module outside infra/ talks to an engine's own client (STYLE.md "A small core, thin adapters").
      'no-restricted-imports': [
        'error',
        {
          paths: ['pg', 'kafkajs', '@clickhouse/client', 'chdb', 'aedes'].map((name) => ({
            name,
            message: 'engines are reached through infra/ ports',
          })),
        },
      ],
    },
  },
  // Benchmarks measure the engines' own limits beside the product, so they hold the raw clients too.
  { files: ['infra/**', 'tests/harness/**', 'tests/contracts/**', 'tests/bench/**'], rules: { 'no-restricted-imports': 'off' } },
  {
    files: ['web/**'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
);
