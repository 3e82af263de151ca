import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { pathBeforeQuery, queryOf } from '#libs/common';
import { sourceFiles } from '../support/source-files.js';

/**
 * A request URL is cut at its `?` in one place (libs/common's url-path.ts): the path before it for
 * routing, admission and the access line (which must never log a query: it may carry a token), the
 * query after it for the OAuth request limits. Three copies of the path cut had grown apart
 * (`split('?')`, `split('?', 1)`, `indexOf`); this finds any new one in the services' code.
 */
const HOME = 'libs/common/src/http/url-path.ts';
const CUTS = new Set(['split', 'indexOf', 'lastIndexOf', 'includes']);

function questionMarkCuts(): string[] {
  const found: string[] = [];
  for (const file of [...sourceFiles('apps'), ...sourceFiles('libs', { skip: ['testing'] })]) {
    if (file === HOME) continue;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        CUTS.has(node.expression.name.text) &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteralLike(node.arguments[0]) &&
        node.arguments[0].text === '?'
      ) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("a URL is cut at its '?' in one place", () => {
  it('pathBeforeQuery keeps everything before the first ?, and the whole URL without one', () => {
    expect(pathBeforeQuery('/api/v1/todos?limit=5&cursor=a?b')).toBe('/api/v1/todos');
    expect(pathBeforeQuery('/api/v1/todos')).toBe('/api/v1/todos');
    expect(pathBeforeQuery('/?')).toBe('/');
    expect(pathBeforeQuery('?access_token=secret')).toBe('');
  });

  it('queryOf keeps everything after the first ?, and nothing without one', () => {
    expect(queryOf('/oauth/auth?client_id=a&state=x?y')).toBe('client_id=a&state=x?y');
    expect(queryOf('/oauth/auth')).toBe('');
    expect(queryOf('/oauth/auth?')).toBe('');
  });

  it("no other file of apps/ or libs/ cuts a string at '?' itself", () => {
    expect(questionMarkCuts()).toEqual([]);
  });
});
