import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * A file that declares an `@Injectable()`, `@Controller()` or `@Module()` class is named
 * `<name>.<role>.ts` with one of these roles (CONTRIBUTING, "Layout and naming"), so a reader finds
 * the providers of a folder by their names. A class with a role not listed here adds the role here
 * and in CONTRIBUTING; files are never exempted one by one.
 */
const ROLES = [
  'module',
  'controller',
  'service',
  'repository',
  'guard',
  'strategy',
  'filter',
  'interceptor',
  'pipe',
  'tools', // a feature's MCP tools: `<feature>-mcp.tools.ts`
  'registry',
  'endpoint',
  'authenticator',
  'verifier',
  'sweeper',
  'metrics', // registers and collects gauges or counters: `database-pool.metrics.ts`
  'listener', // holds a PostgreSQL LISTEN connection: `todo-events.listener.ts`
] as const;

const ROOT = process.cwd();
const NEST_ROLE_DECORATORS = new Set(['Injectable', 'Controller', 'Module']);
const NAMED_WITH_ROLE = new RegExp(`^[a-z0-9]+(?:-[a-z0-9]+)*\\.(?:${ROLES.join('|')})\\.ts$`);

/** The names of the Nest-role classes a file declares. */
function nestRoleClasses(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
  return file.statements.filter(ts.isClassDeclaration).flatMap((declaration) => {
    const decorators = ts.getDecorators(declaration) ?? [];
    const hasRole = decorators.some(
      (decorator) => ts.isCallExpression(decorator.expression) && ts.isIdentifier(decorator.expression.expression) && NEST_ROLE_DECORATORS.has(decorator.expression.expression.text),
    );
    return hasRole ? [declaration.name?.text ?? '(anonymous)'] : [];
  });
}

function sourcesWithNestRoles(): string[] {
  return ['apps', 'libs'].flatMap((root) => sourceFiles(join(ROOT, root))).filter((path) => nestRoleClasses(path).length > 0);
}

describe('every injectable lives in a <name>.<role>.ts file', () => {
  it('sees the tree’s injectables (a check that sees nothing would pass anything)', () => {
    expect(sourcesWithNestRoles().length).toBeGreaterThan(80);
  });

  it('every file declaring an @Injectable/@Controller/@Module class is named <name>.<role>.ts with a listed role', () => {
    const misnamed = sourcesWithNestRoles()
      .filter((path) => !NAMED_WITH_ROLE.test(basename(path)))
      .map((path) => `${relative(ROOT, path)} (${nestRoleClasses(path).join(', ')})`);
    expect(misnamed).toEqual([]);
  });
});
