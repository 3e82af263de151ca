import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * One credential extractor (`bearerTokenOf`, `presentedCredential`, `looksLikeJwt` in
 * libs/common/src/auth/credentials.ts) serves every guard, and one UUID pattern (`UUID_PATTERN`,
 * libs/common/src/ids/uuid.ts) every check: no code in apps/ or libs/ parses a bearer header,
 * sniffs a JWT's shape or spells a UUID pattern of its own.
 */

const ROOT = process.cwd();
const CREDENTIALS = 'libs/common/src/auth/credentials.ts';
const UUID_FILE = 'libs/common/src/ids/uuid.ts';

interface Found {
  path: string;
  text: string;
}

/** Regular-expression literals and string literals of the code in apps/ and libs/ (migrations aside). */
function literals(): { regexes: Found[]; strings: Found[] } {
  const regexes: Found[] = [];
  const strings: Found[] = [];
  for (const path of ['apps', 'libs'].flatMap((dir) => sourceFiles(join(ROOT, dir), { skip: ['migrations'] }))) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) regexes.push({ path: relative(ROOT, path), text: node.getText() });
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.push({ path: relative(ROOT, path), text: node.text });
      node.forEachChild(visit);
    };
    visit(file);
  }
  return { regexes, strings };
}

const { regexes, strings } = literals();
const where = (found: Found[]) => found.map(({ path, text }) => `${path}: ${text}`);

describe('one credential extractor', () => {
  it('finds the one bearer parser and JWT sniffer (a check that sees nothing would pass anything)', () => {
    expect(regexes.filter(({ path }) => path === CREDENTIALS).length).toBe(2);
  });

  it('no other code parses `Authorization: Bearer` (a regex, or a prefix to cut)', () => {
    expect(where(regexes.filter(({ path, text }) => path !== CREDENTIALS && /bearer/i.test(text)))).toEqual([]);
    expect(where(strings.filter(({ path, text }) => path !== CREDENTIALS && /^bearer\s$/i.test(text)))).toEqual([]);
  });

  it('no other code sniffs a JWT’s shape', () => {
    expect(where(regexes.filter(({ path, text }) => path !== CREDENTIALS && text.includes('eyJ')))).toEqual([]);
  });
});

describe('one UUID pattern', () => {
  it('finds UUID_PATTERN (a check that sees nothing would pass anything)', () => {
    expect(where(regexes.filter(({ path }) => path === UUID_FILE))).toHaveLength(1);
  });

  it('no other code spells a UUID pattern', () => {
    expect(where(regexes.filter(({ path, text }) => path !== UUID_FILE && /\{8\}-/.test(text)))).toEqual([]);
  });
});
