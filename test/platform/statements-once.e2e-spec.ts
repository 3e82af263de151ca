import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from '../support/source-files.js';

/**
 * One home per statement: the same SQL written in two files is one rule kept twice (an account's row read five ways,
 * its lock written in four repositories), and the copies drift. A feature that needs another's rows asks its service
 * (`UsersService.findById`, `ApiKeysService.list`); a lock shared by features is a function (`lockAccountRow`).
 * Statements are compared with their whitespace folded; migrations, which replay history, are left out.
 */
const STATEMENT = /\.query(?:<[^>]*>)?\(\s*(`[^`]*`|'[^']*'|"[^"]*")/g;

function statementsOf(text: string): string[] {
  return [...text.matchAll(STATEMENT)].map((match) => match[1].slice(1, -1).replace(/\s+/g, ' ').trim());
}

describe('each SQL statement is written once', () => {
  const root = process.cwd();
  const files = [...sourceFiles(join(root, 'apps'), { skip: ['migrations'] }), ...sourceFiles(join(root, 'libs'), { skip: ['migrations'] })].map((path) => ({
    path: relative(root, path),
    statements: statementsOf(readFileSync(path, 'utf8')),
  }));
  const homes = new Map<string, Set<string>>();
  for (const file of files) for (const statement of file.statements) homes.set(statement, (homes.get(statement) ?? new Set()).add(file.path));

  it('sees the repositories’ statements (a check that sees nothing would pass anything)', () => {
    expect(homes.size).toBeGreaterThan(200);
    expect(statementsOf('await tx.query<Row>(`SELECT 1\n   FROM users WHERE id = $1`, [id])')).toEqual(['SELECT 1 FROM users WHERE id = $1']);
  });

  it('finds no statement in two files', () => {
    const twice = [...homes].filter(([, paths]) => paths.size > 1).map(([statement, paths]) => `${statement.slice(0, 100)} in ${[...paths].sort().join(', ')}`);
    expect(twice).toEqual([]);
  });
});
