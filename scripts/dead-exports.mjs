// Dead exports: knip (knip.json: both apps' entry points, tests, bench, scripts) lists every export
// nothing imports. The ones there were when the check came are in dead-exports.baseline.json; a new
// one fails (remove the export, or the `export` keyword), and so does a listed one that is gone
// (drop its line: the list only shrinks). `node scripts/dead-exports.mjs --update` rewrites the list.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const baselinePath = fileURLToPath(new URL('./dead-exports.baseline.json', import.meta.url));
const run = spawnSync('node_modules/.bin/knip', ['--include', 'exports,types', '--reporter', 'json', '--no-progress'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (run.error || !run.stdout.trim().startsWith('{')) {
  console.error(run.error?.message ?? run.stderr);
  process.exit(2);
}
const current = JSON.parse(run.stdout).issues.flatMap((issue) =>
  ['exports', 'types'].flatMap((kind) => (issue[kind] ?? []).map((found) => `${issue.file}: ${found.name}`)),
).sort();

if (process.argv.includes('--update')) {
  writeFileSync(baselinePath, JSON.stringify(current, null, 2) + '\n');
  console.log(`dead-exports.baseline.json: ${current.length} exports`);
  process.exit(0);
}

const baseline = new Set(JSON.parse(readFileSync(baselinePath, 'utf8')));
const added = current.filter((entry) => !baseline.has(entry));
const gone = [...baseline].filter((entry) => !current.includes(entry));
if (added.length > 0) console.error(`Exported but imported nowhere (remove the export, or drop the \`export\` keyword):\n  ${added.join('\n  ')}`);
if (gone.length > 0) console.error(`No longer dead: remove from scripts/dead-exports.baseline.json:\n  ${gone.join('\n  ')}`);
if (added.length > 0 || gone.length > 0) process.exit(1);
console.log(`dead exports: none new (${current.length} known, listed in scripts/dead-exports.baseline.json)`);
