import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * libs/accounts holds the account system both services share (CONTRIBUTING, "Map of the tree").
 * An export that code outside the lib uses (todo-api, tests, other libs) but feedback-export never
 * does is todo-api's, and lives in apps/todo-api, unless it is the writing side of what both
 * services read: users and sessions are created and tokens signed by todo-api's routes, OAuth
 * tokens issued by its authorization server; feedback-export checks the same rows and tokens.
 * Those stay beside their reading side so the two cannot drift apart, and are listed here with
 * the reason. A todo-only export that is none of these goes to apps/todo-api instead.
 */
const SHARED_BUT_WRITTEN_BY_TODO_API: Record<string, string> = {
  PasswordHasher: 'the password format of the shared users table',
  prehashPassword: 'the password format of the shared users table (test factories insert users)',
  canonicalEmail: 'what identifies a user row (its unique email_canonical)',
  AccessTokenService: 'signs the access tokens JwtStrategy verifies in both services (same secret and claims)',
  presentAccessToken: 'the one JWT check, for a token found outside the bearer header',
  VerifiedAccessToken: 'the one JWT check, for a caller outside a route\'s guards',
  CredentialRevocations: 'announces that a user\'s credentials changed, to whatever holds responses open; names no feature',
  UserRow: 'the users table (feedback-export\'s site owners)',
  USER_COLUMNS: 'the users table (feedback-export\'s site owners)',
  SessionRow: 'the sessions table JwtStrategy checks',
  SESSION_COLUMNS: 'the sessions table JwtStrategy checks',
  TODO_SCOPES: 'the scopes the shared authorization server grants for the todo resource',
  todoMcpResource: 'one of the two resources the shared authorization server issues tokens for',
  OAUTH_SIGNING_ALG: 'the algorithm the issuer signs with and both verifiers accept',
  OAuthSigningKeys: 'the keys the issuer signs with and both verifiers read',
  OAUTH_ID_TOKEN_SIGNING_ALGS: 'the key types OAuthSigningKeys keeps and rotates (ID-token algorithms beside the access-token one)',
  oauthIssuer: 'the issuer both verifiers expect',
  isDetailFor: 'authorization_details, as issued and as verified',
  feedbackSiteDetail: 'authorization_details, as issued and as verified',
  FeedbackSiteAction: 'authorization_details, as issued and as verified',
  AccountOAuthGrants: 'revokes the OAuth grants both verifiers check on every request (isGrantAndKeyLive), beside that check',
  RevokedOAuthApp: 'what AccountOAuthGrants answers',
};

const ROOT = process.cwd();

const program = ts.createProgram({
  rootNames: [join(ROOT, 'libs/accounts/src/index.ts'), ...['apps', 'libs', 'test'].flatMap((dir) => sourceFiles(join(ROOT, dir)))],
  options: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2023, paths: { '#libs/*': ['./libs/*/src/index.ts'] }, baseUrl: ROOT, noEmit: true },
});

/** Every name libs/accounts exports (values and types), as the compiler sees its index. */
function accountsExports(): string[] {
  const index = program.getSourceFile(join(ROOT, 'libs/accounts/src/index.ts'));
  const checker = program.getTypeChecker();
  const symbol = index && checker.getSymbolAtLocation(index);
  if (!symbol) throw new Error('libs/accounts/src/index.ts did not load');
  return checker.getExportsOfModule(symbol).map((exported) => exported.name).sort();
}

/** The names the sources under `dirs` import from `#libs/accounts` (a namespace import counts as all). */
function namesImportedFromAccounts(...dirs: string[]): Set<string> {
  const names = new Set<string>();
  const under = (file: ts.SourceFile) => dirs.some((dir) => file.fileName.startsWith(join(ROOT, dir) + '/'));
  for (const file of program.getSourceFiles().filter(under)) {
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || statement.moduleSpecifier.text !== '#libs/identity') continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) accountsExports().forEach((name) => names.add(name));
      if (bindings && ts.isNamedImports(bindings)) bindings.elements.forEach((element) => names.add((element.propertyName ?? element.name).text));
    }
  }
  return names;
}

/** Every place outside libs/accounts but feedback-export: todo-api, the other libs, the tests. */
const ELSEWHERE = ['apps/todo-api', 'test', ...readdirSync(join(ROOT, 'libs')).filter((lib) => lib !== 'accounts').map((lib) => `libs/${lib}`)];

/** Files of `from` whose imports resolve into a file under `into`. */
function importsInto(from: string, into: string): string[] {
  const found: string[] = [];
  for (const file of program.getSourceFiles().filter((source) => source.fileName.startsWith(join(ROOT, from) + '/'))) {
    for (const statement of file.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const resolved = ts.resolveModuleName(statement.moduleSpecifier.text, file.fileName, program.getCompilerOptions(), ts.sys).resolvedModule;
      if (resolved && resolved.resolvedFileName.startsWith(join(ROOT, into) + '/')) found.push(`${relative(ROOT, file.fileName)} -> ${statement.moduleSpecifier.text}`);
    }
  }
  return found;
}

describe('libs/accounts is what both services share', () => {
  it('exports nothing that only todo-api (or its tests) uses, beyond the shared parts todo-api writes (listed with a reason)', () => {
    const feedbackUses = namesImportedFromAccounts('apps/feedback-export');
    const usedElsewhere = namesImportedFromAccounts(...ELSEWHERE);
    const todoOnly = accountsExports().filter((name) => usedElsewhere.has(name) && !feedbackUses.has(name) && !(name in SHARED_BUT_WRITTEN_BY_TODO_API));
    expect(todoOnly).toEqual([]);
  });

  it('lists only names libs/accounts exports, feedback-export does not use and something else does', () => {
    const exported = new Set(accountsExports());
    const feedbackUses = namesImportedFromAccounts('apps/feedback-export');
    const usedElsewhere = namesImportedFromAccounts(...ELSEWHERE);
    expect(Object.keys(SHARED_BUT_WRITTEN_BY_TODO_API).filter((name) => !exported.has(name) || feedbackUses.has(name) || !usedElsewhere.has(name))).toEqual([]);
  });

  it('feedback-export imports nothing from todo-api, and libs nothing from either app', () => {
    expect(importsInto('apps/feedback-export', 'apps/todo-api')).toEqual([]);
    expect(importsInto('libs', 'apps')).toEqual([]);
  });
});
