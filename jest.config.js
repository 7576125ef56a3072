// The one place the test runner is set up. oidc-provider 9 is ESM-only, so jest runs
// real ES modules (node --experimental-vm-modules, see package.json "test") and
// @swc/jest strips the TypeScript types without type-checking (`npm run typecheck` does that).
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
      module: { type: 'es6' },
    }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  testTimeout: 30_000,
  maxWorkers: 2,
};
