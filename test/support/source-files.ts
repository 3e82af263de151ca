import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The TypeScript files below `dir`, for the tests that read the tree's own sources (test/platform):
 * unit tests (`*.spec.ts`) only with `specs`, never a folder named in `skip` (node_modules always).
 */
export function sourceFiles(dir: string, options: { specs?: boolean; skip?: string[] } = {}): string[] {
  const skip = new Set(['node_modules', ...(options.skip ?? [])]);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : sourceFiles(path, options);
    return entry.name.endsWith('.ts') && (options.specs || !entry.name.endsWith('.spec.ts')) ? [path] : [];
  });
}
