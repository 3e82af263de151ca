import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * A test that bounds how long something takes, under a second, goes through `fastestOf` (#libs/testing): on a busy
 * 2-core machine one try sometimes stalls for hundreds of ms, and CI failed on single tries of 51 ms against 50 and
 * 106 ms against 100. This finds a new single-try bound: `expect(<clock>.now() - <start>).toBeLessThan(<n>)`, or of a
 * name that holds such a read, with `n` under ONE_TRY_FLOOR_MS. Bounds of a second or more tell a waited-out timeout
 * from a prompt answer and stay.
 */
const ONE_TRY_FLOOR_MS = 1000;

let parsedSpecs: { file: string; source: ts.SourceFile }[] | undefined;

/** Every spec of the tree, parsed once for both rules. */
function specSources(): { file: string; source: ts.SourceFile }[] {
  parsedSpecs ??= [...sourceFiles('apps', { specs: true }), ...sourceFiles('libs', { specs: true }), ...sourceFiles('test')]
    .filter((file) => /\.(e2e-)?spec\.ts$/.test(file))
    .map((file) => ({ file, source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true) }));
  return parsedSpecs;
}

function singleTryBounds(): string[] {
  const found: string[] = [];
  for (const { file, source } of specSources()) {
    const elapsedNames = clockReadsKeptInNames(source);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        /^toBeLessThan(OrEqual)?$/.test(node.expression.name.text) &&
        node.arguments[0] !== undefined &&
        ts.isNumericLiteral(node.arguments[0]) &&
        Number(node.arguments[0].text) < ONE_TRY_FLOOR_MS &&
        ts.isCallExpression(node.expression.expression) &&
        isElapsedRead(node.expression.expression.arguments[0], elapsedNames)
      ) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Names a file binds to a clock read (`const ms = performance.now() - started`). */
function clockReadsKeptInNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isElapsedSinceClock(node.initializer)) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The clock read itself, or a name it was kept in. */
function isElapsedRead(node: ts.Expression | undefined, elapsedNames: Set<string>): boolean {
  return isElapsedSinceClock(node) || (node !== undefined && ts.isIdentifier(node) && elapsedNames.has(node.text));
}

/** `performance.now() - x` or `Date.now() - x`: one try read off a clock. */
function isElapsedSinceClock(node: ts.Expression | undefined): boolean {
  if (!node || !ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.MinusToken) return false;
  const left = node.left;
  return ts.isCallExpression(left) && ts.isPropertyAccessExpression(left.expression) && left.expression.name.text === 'now';
}

/**
 * How specs pause: the one way is `sleep`, `import { setTimeout as sleep } from 'node:timers/promises'` (eslint refuses a
 * home-made `new Promise((resolve) => setTimeout(resolve, ms))`). The other names catch the same pause spelled otherwise:
 * a `tick` or `delay` helper, or `timers/promises`' `setTimeout` imported without the rename.
 */
const FIXED_WAITS = new Set(['tick', 'sleep', 'delay', 'setTimeout']);

/**
 * A fixed wait followed at once by a claim that something happened in the background (a probe ran, a state came
 * back): on a stalled machine the timer that ends the wait can fire before the background timers it waited for, and
 * CI failed on `await tick(80); expect(probes).toBeGreaterThanOrEqual(2)` with 1. Such a claim waits with `until`. A
 * fixed wait still proves that nothing more happened, which a stall only makes weaker, never false: a claim of no
 * change (`.not.`, `.toBe(false)`, or a value equal to a snapshot taken before, `.toBe(seen)`) may follow one.
 */
function claimsAfterFixedWaits(): string[] {
  const found: string[] = [];
  for (const { file, source } of specSources()) {
    const visit = (node: ts.Node): void => {
      if (ts.isBlock(node)) {
        node.statements.forEach((statement, index) => {
          const next = node.statements[index + 1];
          if (isFixedWait(statement) && next && isExpectation(next) && !claimsNoChange(next)) {
            found.push(`${file}:${source.getLineAndCharacterOfPosition(next.getStart()).line + 1}: ${next.getText()}`);
          }
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** `await sleep(80);` (or, from before the lint rule, `await new Promise((resolve) => setTimeout(resolve, 80));`) */
function isFixedWait(statement: ts.Statement): boolean {
  if (!ts.isExpressionStatement(statement) || !ts.isAwaitExpression(statement.expression)) return false;
  const awaited = statement.expression.expression;
  if (ts.isCallExpression(awaited)) return ts.isIdentifier(awaited.expression) && FIXED_WAITS.has(awaited.expression.text);
  return ts.isNewExpression(awaited) && ts.isIdentifier(awaited.expression) && awaited.expression.text === 'Promise' && /\bsetTimeout\(/.test(awaited.getText());
}

/** `expect(…)…;` */
function isExpectation(statement: ts.Statement): statement is ts.ExpressionStatement {
  if (!ts.isExpressionStatement(statement)) return false;
  let node: ts.Expression = statement.expression;
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect') return true;
    node = node.expression;
  }
  return false;
}

/**
 * `expect(x).not.…`, `expect(x).toBe(false)`, or `expect(x).toBe(seen)`: nothing more happened. A value written out
 * (`toBe(true)`, `toHaveLength(3)`, `toEqual(['up', true])`) is a claim that something did.
 */
function claimsNoChange(statement: ts.ExpressionStatement): boolean {
  const matcher = statement.expression;
  if (!ts.isCallExpression(matcher) || !ts.isPropertyAccessExpression(matcher.expression)) return false;
  const subject = matcher.expression.expression;
  if (ts.isPropertyAccessExpression(subject) && subject.name.text === 'not') return true;
  const [expected] = matcher.arguments;
  if (!/^(toBe|toEqual|toStrictEqual|toHaveLength)$/.test(matcher.expression.name.text) || expected === undefined) return false;
  return !isWrittenOut(expected);
}

/** A literal other than `false`, or an expectation built of literals (`expect.objectContaining({…})`), rather than a value read before. */
function isWrittenOut(node: ts.Expression): boolean {
  return (
    ts.isLiteralExpression(node) ||
    ts.isPrefixUnaryExpression(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword ||
    ts.isArrayLiteralExpression(node) ||
    ts.isObjectLiteralExpression(node) ||
    (ts.isCallExpression(node) && /^expect\./.test(node.expression.getText()))
  );
}

describe('a test bounds a time under a second by the fastest of several tries', () => {
  it('no spec bounds a single try of a clock under a second', () => {
    expect(singleTryBounds()).toEqual([]);
  });

  it('no spec claims background work happened after a fixed wait (it waits with until)', () => {
    expect(claimsAfterFixedWaits()).toEqual([]);
  });
});
