// The one place the test runner is set up. oidc-provider 9 is ESM-only, so jest runs real
// ES modules (node --experimental-vm-modules, see package.json "test") and ts-jest's ESM
// mode compiles TypeScript per file without type-checking (`npm run typecheck` does that).
// ts-jest rather than a native transformer: this registry serves no prebuilt binaries for
// other platforms, which `npm ci` would need in the lockfile.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', {
      useESM: true,
      tsconfig: 'tsconfig.test.json',
    }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  testTimeout: 30_000,
  maxWorkers: 2,
};
