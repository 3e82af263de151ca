// `npm run test:pg [jest args]`: the end-to-end suites against real PostgreSQL (DATABASE_URL),
// each test file in its own fresh database. Extra arguments (paths, -t) go before the project
// selection so Jest does not read a path as a project name.
import { spawnSync } from 'node:child_process';

if (!process.env.DATABASE_URL) {
  console.error('test:pg needs DATABASE_URL, e.g. postgres://user:pass@127.0.0.1:5432/postgres (a role allowed to CREATE DATABASE).');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...process.argv.slice(2), '--selectProjects', 'e2e', 'reliability'],
  { stdio: 'inherit', env: { ...process.env, TEST_DB: 'pg' } },
);
process.exit(result.status ?? 1);
