import { availableParallelism } from 'node:os';

// Jest runs in ESM mode (NestJS 12 ships ES modules); @swc/jest keeps decorator metadata,
// without which Nest's constructor injection silently yields undefined.
const swcTransform = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      target: 'es2022',
      keepClassNames: true,
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    },
    module: { type: 'es6' },
  },
];

const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swcTransform },
  moduleNameMapper: {
    '^#libs/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
};

const cores = availableParallelism();
// The reliability suites time faults, overload and pathological input: they run one file at a time
// (test:pg and test:redis include them, so those runs are serial too).
const runsReliability = process.argv.some((arg) => arg === 'reliability' || arg.includes('test/reliability'));

export default {
  testTimeout: 30000,
  // Jest's default is one worker fewer than the cores: one worker on a 2-core machine, which leaves
  // a core idle while the worker waits on its database, child processes and sockets. Two workers
  // there; elsewhere the default. `-w N` on the command line still wins.
  maxWorkers: runsReliability ? 1 : Math.max(Math.min(cores, 2), cores - 1),
  // Test files run in a worker process that is replaced once its heap holds more than this after a
  // file. Without a limit, a run with one worker runs every file in Jest's own process, whose heap
  // grows with each file's module graph until V8 aborts the whole run (exit 134). Jest's ESM mode
  // keeps every finished file's modules (jestjs/jest#14605): a worker grew from 177 to 692 MB over six
  // files that boot an app, and each boot's CPU doubled (4.5 -> 9 s) as the collector walked the
  // growing heap. A fresh worker after a file that booted an app costs less than that: npm test
  // 966 -> 816 s, 1,728 -> 1,464 s of CPU at 350MB against 1GB (200MB and 500MB were slower).
  workerIdleMemoryLimit: '350MB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    // Fault injection, replicas, gateways, fuzzing and attack suites: slow, so `npm test` leaves them
    // to CI (`npm run test:reliability:embedded`, and `test:pg`/`test:reliability` on PostgreSQL);
    // `npm test -- test/reliability/<file>` still runs one (scripts/test.mjs).
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/reliability/'] },
    { ...shared, displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.e2e-spec.ts'] },
  ],
};
