import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * `@Global()` only for what every layer reads (CONTRIBUTING, "Layout and naming"): configuration and
 * the rate-limit store. Any other module is imported by the modules that use it, so a module's
 * imports say what it depends on. A module left global for a stated reason is listed with it.
 */
const ALLOWED_GLOBAL_MODULES: Record<string, string> = {
  AppConfigModule: 'configuration',
  BillingConfigModule: 'configuration (todo-api’s billing settings)',
  QuotaConfigModule: 'configuration (feedback-export’s quotas)',
  RateLimitStoreModule: 'the rate-limit store',
  // @RateLimit puts RateLimitGuard on routes of every module; the guard and AttemptLimiter count on the store.
  RateLimitModule: 'the rate-limit store, with the guard every module’s routes use',
  BreachedPasswordsConfigModule: 'configuration (the breached-password check’s settings)',
};

const ROOT = process.cwd();

/** `<file>: <class>` for every class decorated with @Global(). */
function globalModules(): string[] {
  return ['apps', 'libs']
    .flatMap((root) => sourceFiles(join(ROOT, root)))
    .flatMap((path) => {
      const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
      return file.statements.filter(ts.isClassDeclaration).flatMap((declaration) => {
        const global = (ts.getDecorators(declaration) ?? []).some(
          (decorator) => ts.isCallExpression(decorator.expression) && ts.isIdentifier(decorator.expression.expression) && decorator.expression.expression.text === 'Global',
        );
        return global ? [`${relative(ROOT, path)}: ${declaration.name?.text ?? '(anonymous)'}`] : [];
      });
    });
}

describe('@Global() is kept for configuration and the rate-limit store', () => {
  it('sees the global modules (a check that sees nothing would pass anything)', () => {
    expect(globalModules().some((found) => found.endsWith(': AppConfigModule'))).toBe(true);
  });

  it('no module is global unless listed here with its reason', () => {
    const unlisted = globalModules().filter((found) => !(found.split(': ')[1] in ALLOWED_GLOBAL_MODULES));
    expect(unlisted).toEqual([]);
  });
});
