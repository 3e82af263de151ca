import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const MARK = 'package-loaded ';

/** Loaded first in a child process: writes one line per package the process loads (import or require), scoped packages by scope and name. */
const MODULE_HOOK = `
import { registerHooks } from 'node:module';
registerHooks({
  load(url, context, nextLoad) {
    const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/@][^/]*)\\//.exec(url);
    if (match) process.stderr.write(${JSON.stringify(MARK)} + match[1] + '\\n');
    return nextLoad(url, context);
  },
});
`;

/** Writes the module hook into `dir` and answers the NODE_OPTIONS that load it first in a child (node:module registerHooks). */
export function packageLoadHook(dir: string): string {
  const hook = join(dir, 'package-load-hook.mjs');
  writeFileSync(hook, MODULE_HOOK);
  return `--import=${pathToFileURL(hook).href}`;
}

/** The packages a child started with packageLoadHook's NODE_OPTIONS has loaded so far (from its output), sorted, each once. */
export function loadedPackages(output: string): string[] {
  const packages = output
    .split('\n')
    .filter((line) => line.startsWith(MARK))
    .map((line) => line.slice(MARK.length));
  return [...new Set(packages)].sort();
}
