import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * No import circle among the source files of apps/ and libs/ (CONTRIBUTING, "Layout and naming"): a
 * circle means two files each need the other, so neither can be read, moved or tested alone, and
 * ES modules hand one of them a half-initialised partner at load time. Type-only imports count too
 * (they are the same dependency for a reader). Followed: relative imports and `#libs/<name>` (the
 * lib's `src/index.ts`), in `import` and `export … from` statements.
 */

const ROOT = process.cwd();
const SOURCE_ROOTS = ['apps', 'libs'];

/** The file an import names, or undefined for a package import. */
function resolveImport(importer: string, specifier: string): string | undefined {
  if (specifier.startsWith('#libs/')) return join(ROOT, 'libs', specifier.slice('#libs/'.length), 'src', 'index.ts');
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(importer), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of SOURCE_ROOTS.flatMap((root) => sourceFiles(join(ROOT, root), { specs: true }))) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
    const targets: string[] = [];
    for (const statement of file.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const target = resolveImport(path, statement.moduleSpecifier.text);
      if (target) targets.push(target);
    }
    graph.set(path, targets);
  }
  return graph;
}

/** Each circle found by a depth-first walk, written `a -> b -> … -> a` (repository-relative paths). */
function importCycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        cycles.push([...stack.slice(stack.indexOf(next)), next].map((path) => relative(ROOT, path)).join(' -> '));
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('no import circles in apps/ and libs/', () => {
  it('sees the import graph (a check that sees nothing would pass anything)', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(200);
    expect([...graph.values()].reduce((sum, targets) => sum + targets.length, 0)).toBeGreaterThan(500);
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
    ]);
    expect(importCycles(graph)).toHaveLength(1);
  });

  it('no source file imports, through any chain, a file that imports it back', () => {
    expect(importCycles(importGraph())).toEqual([]);
  });
});
