import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import ts from 'typescript';
import { pathologicalStrings } from '../reliability/support/pathological-strings.js';
import { sourceFiles } from '../support/source-files.js';
import { fastestOf } from '#libs/testing';

/**
 * Every regular expression literal of the services' code (apps/ and libs/, browser scripts aside)
 * runs in linear time: pathological strings of 100,000 characters, cut from strings the pattern
 * itself matches and from the usual shapes of request data, each take under 50 ms (a backtracking
 * pattern takes seconds: the old widget pageUrl pattern took about 7 s on 100,000). Patterns built
 * with `new RegExp` are listed so a new one is seen (and must be checked like these).
 */
const LENGTH = 100_000;
const LIMIT_MS = 50;

interface Found {
  where: string;
  text: string;
}

function regexLiterals(): { literals: Found[]; constructed: Found[] } {
  const literals: Found[] = [];
  const constructed: Found[] = [];
  for (const file of [...sourceFiles('apps'), ...sourceFiles('libs', { skip: ['testing'] })]) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const where = `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) literals.push({ where, text: node.getText() });
      if (ts.isNewExpression(node) && node.expression.getText() === 'RegExp') constructed.push({ where, text: node.getText() });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { literals, constructed };
}

/** The literal as a RegExp without g/y (whose lastIndex would make repeated tests start mid-string). */
function compile(text: string): RegExp {
  const slash = text.lastIndexOf('/');
  return new RegExp(text.slice(1, slash), text.slice(slash + 1).replace(/[gy]/g, ''));
}

function matchingSamples(pattern: RegExp): string[] {
  try {
    return fc.sample(fc.stringMatching(pattern, { size: 'small' }), { numRuns: 4, seed: 27 });
  } catch {
    return []; // a construct fast-check cannot generate from (lookbehind…): the generic samples still apply
  }
}

describe('regular expressions in the services run in linear time', () => {
  const { literals, constructed } = regexLiterals();

  it('finds the patterns of both apps and libs, the widget pageUrl among them', () => {
    expect(literals.length).toBeGreaterThan(40);
    expect(literals.some((found) => found.where.includes('widget.dto.ts'))).toBe(true);
  });

  it('each literal refuses or accepts pathological strings of 100,000 characters within 50 ms', async () => {
    const slow: string[] = [];
    for (const { where, text } of literals) {
      const pattern = compile(text);
      const samples = matchingSamples(pattern);
      // Each cut of a sample also repeats the character that comes next in it (e.g. `-` for `-+$`).
      const pumps = [...new Set(samples.flatMap((sample) => [...sample]))].slice(0, 12);
      const candidates = [
        ...pathologicalStrings(LENGTH, { samples }),
        ...pumps.flatMap((pump) => [`${pump.repeat(LENGTH)} `, `${pump.repeat(LENGTH)}!`, `a${pump.repeat(LENGTH)}a`]).map((value) => ({ label: `${JSON.stringify(value[0])}…`, value })),
      ];
      for (const candidate of candidates) {
        const { ms } = await fastestOf(() => pattern.test(candidate.value), LIMIT_MS);
        if (ms >= LIMIT_MS) {
          slow.push(`${where} ${text} on ${candidate.label}: ${ms.toFixed(0)} ms`);
          break;
        }
      }
    }
    expect(slow).toEqual([]);
  }, 300_000);

  it('patterns built at run time are the known ones (each built from fixed text, never from request data)', () => {
    // api-key.format: `^tdk_[0-9A-Za-z]{n}$` from constants (request logging compares path segments, without a pattern).
    expect(constructed.map((found) => found.where.replace(/:\d+$/, ''))).toEqual(['apps/todo-api/src/api-access/api-key.format.ts']);
  });
});
