import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * A feature reaches another feature through its exported service, never its repository
 * (CONTRIBUTING, "Layout and naming"): a `*.repository.ts` is imported only from its own feature
 * folder (an app's `src/<feature>/`, a room of the identity wing `libs/identity/src/<room>/`).
 * The files at the top of an app or of the wing (its root module) assemble features and may
 * register any provider; a type alone (a row's shape, declared beside its queries) may be imported.
 * Nor does a module export its repository: what a feature offers the others is its service.
 */

const ROOT = process.cwd();
/** Where features are: each folder below one of these is a feature (or a room of the wing). */
const FEATURE_ROOTS = ['apps/todo-api/src', 'apps/feedback-export/src', 'libs/identity/src'].filter((root) => existsSync(join(ROOT, root)));

function featureOf(path: string): string | undefined {
  const root = FEATURE_ROOTS.find((candidate) => path.startsWith(candidate + '/'));
  const rest = root && path.slice(root.length + 1).split('/');
  return root && rest && rest.length > 1 ? `${root}/${rest[0]}` : undefined;
}

/** Whether an import brings in types alone (`import type`, or every name marked `type`). */
function typeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  const clause = statement.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly);
}

/** Every import of a repository file from outside the repository's feature: `<importer> -> <repository>`. */
function repositoriesReachedFromOutside(): string[] {
  const found: string[] = [];
  for (const path of FEATURE_ROOTS.flatMap((root) => sourceFiles(join(ROOT, root)))) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
    for (const statement of file.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const specifier = statement.moduleSpecifier.text;
      if (!specifier.startsWith('.') || !/\.repository\.js$/.test(specifier) || typeOnly(statement)) continue;
      const target = relative(ROOT, resolve(dirname(path), specifier.replace(/\.js$/, '.ts')));
      const importer = relative(ROOT, path);
      if (featureOf(importer) !== undefined && featureOf(target) !== featureOf(importer)) found.push(`${importer} -> ${target}`);
    }
  }
  return found;
}

/** Every repository a feature's module exports to the modules that import it: `<module file>: <Repository>`. */
function repositoriesExported(): string[] {
  const found: string[] = [];
  for (const path of FEATURE_ROOTS.flatMap((root) => sourceFiles(join(ROOT, root))).filter((file) => file.endsWith('.module.ts'))) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAssignment(node) && node.name.getText(file) === 'exports' && ts.isArrayLiteralExpression(node.initializer)) {
        for (const element of node.initializer.elements) {
          if (ts.isIdentifier(element) && element.text.endsWith('Repository')) found.push(`${relative(ROOT, path)}: ${element.text}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe('features reach other features through services', () => {
  it('sees the features’ repositories (a check that sees nothing would pass anything)', () => {
    const repositories = FEATURE_ROOTS.flatMap((root) => sourceFiles(join(ROOT, root))).filter((path) => path.endsWith('.repository.ts'));
    expect(repositories.length).toBeGreaterThan(10);
  });

  it('no repository is imported from outside its feature', () => {
    expect(repositoriesReachedFromOutside()).toEqual([]);
  });

  it('no module exports its repository to the modules that import it', () => {
    expect(repositoriesExported()).toEqual([]);
  });
});
