import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface BuiltServices {
  /** Root of the private build; remove it when done. */
  root: string;
  /** Entry points, as `npm start` and the containers run them. */
  entries: { both: string; todoApi: string; feedbackExport: string };
}

/**
 * The services compiled as `npm run build` does, into a private directory of this test file
 * (with the project's `imports` map and node_modules beside it), so files that start real child
 * processes never read a `dist/` another file is rewriting.
 */
export function buildServices(): BuiltServices {
  const project = resolve('.');
  const root = mkdtempSync(join(tmpdir(), 'built-services-'));
  execFileSync(process.execPath, [join(project, 'node_modules/@swc/cli/bin/swc.js'), 'apps', 'libs', 'ormconfig.ts', '-d', join(root, 'dist'), '--copy-files', '--config-file', '.swcrc', '-q'], { stdio: 'pipe' });
  const { type, imports } = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type: string; imports: unknown };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'built-services', private: true, type, imports }));
  symlinkSync(join(project, 'node_modules'), join(root, 'node_modules'), 'dir');
  return {
    root,
    entries: {
      both: join(root, 'dist/apps/main.js'),
      todoApi: join(root, 'dist/apps/todo-api/src/main.js'),
      feedbackExport: join(root, 'dist/apps/feedback-export/src/main.js'),
    },
  };
}
