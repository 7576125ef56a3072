// Linter and formatter in one: ESLint's and typescript-eslint's recommended rules catch
// mistakes, and @stylistic's rules, set to the style the code already has, make
// `npm run lint:fix` the formatter. No type-aware rules, so a run builds no TypeScript program
// and stays quick; `npm run typecheck` does the type checking, and `npm run check:cycles`
// (madge) the import cycles.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// @stylistic's own indent options for 2 spaces (as its `customize()` sets them), restated so
// that two can differ below.
const INDENT = {
  ArrayExpression: 1,
  CallExpression: { arguments: 1 },
  flatTernaryExpressions: false,
  FunctionDeclaration: { body: 1, parameters: 1, returnType: 1 },
  FunctionExpression: { body: 1, parameters: 1, returnType: 1 },
  ignoreComments: false,
  ignoredNodes: ['TSUnionType', 'TSIntersectionType'],
  ImportDeclaration: 1,
  MemberExpression: 1,
  ObjectExpression: 1,
  offsetTernaryExpressions: true,
  outerIIFEBody: 1,
  SwitchCase: 1,
  tabLength: 2,
  VariableDeclarator: 1,
};

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', 'coverage/', 'bench/results/']),
  {
    files: ['**/*.{ts,js,mjs}'],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      stylistic.configs.customize({
        indent: [2, {
          ...INDENT,
          // a ternary's branches sit one level under the condition, not two
          offsetTernaryExpressions: false,
          // what is inside the ${…} of a template literal (the markdown and HTML templates)
          // stays as written
          ignoredNodes: [...INDENT.ignoredNodes, 'TemplateLiteral *'],
        }],
        quotes: 'single',
        semi: true,
        jsx: false,
        braceStyle: '1tbs',
        commaDangle: 'always-multiline',
        arrowParens: true,
        blockSpacing: true,
      }),
    ],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // "…'…" rather than '…\'…'
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'avoidEscape' }],
      // a long union or type alias breaks after its `=`; other operators start the next line
      '@stylistic/operator-linebreak': ['error', 'before', { overrides: { '=': 'after' } }],
      // header maps mix quoted and bare names (`'content-type': …, accept: …`)
      '@stylistic/quote-props': ['error', 'as-needed', { keywords: false, unnecessary: false, numbers: false }],
      // short `{ a(); return b; }` bodies on one line are house style
      '@stylistic/max-statements-per-line': 'off',
      // so is `cond ? [` … `] : []` with the array spread over lines
      '@stylistic/multiline-ternary': 'off',
      // the `+` lines of a long concatenation sit one level under its first line; this rule
      // disagrees with itself on identical chains, so `indent` alone judges them
      '@stylistic/indent-binary-ops': 'off',
      // as `noUnusedLocals`/`noUnusedParameters` allow: a leading `_` marks a deliberate unused
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_',
        varsIgnorePattern: '^_',
        caughtErrorsIgnorePattern: '^_',
        destructuredArrayIgnorePattern: '^_',
        ignoreRestSiblings: true,
      }],
    },
  },
  {
    // test assertions walk untyped JSON answers; library code stays free of `any`
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // the layers point down: only the composition root mounts the interaction pages, and
    // the HTML helpers every layer shares live in lib/pages/
    files: ['lib/**/*.ts', 'adapters/**/*.ts'],
    ignores: ['lib/platform-auth.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/interactions/*'], message: 'lib/ does not import interactions/ (only lib/platform-auth.ts mounts it); shared page helpers are in lib/pages/.' }],
      }],
    },
  },
  {
    // examples/host is what an integrator copies: it uses the package's public API only
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: String.raw`^(\.\./)+(lib/(?!index\.ts$)|interactions/|adapters/(?!(memory|redis)\.ts$))`,
          message: 'examples/host imports only what the package exports: lib/index.ts (platform-auth) and adapters/memory.ts or adapters/redis.ts (platform-auth/adapters/*).',
        }],
      }],
    },
  },
);
