// `npm test [jest args]`: the unit and end-to-end suites on embedded databases, the run a newcomer
// makes. The reliability suites (test/reliability: faults, replicas, gateways, fuzzing, attacks)
// run in CI (`npm run test:reliability:embedded`, `npm run test:pg`, `npm run test:reliability`);
// naming a test path or a project runs what is named, reliability suites included.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const namesWhatToRun = args.some((arg) => !arg.startsWith('-') || arg === '--selectProjects');
const projects = namesWhatToRun ? [] : ['--selectProjects', 'unit', 'e2e'];
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...args, ...projects],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
