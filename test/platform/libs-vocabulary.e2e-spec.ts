import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * libs/ is shaped by what both apps share (CONTRIBUTING, "Map of the tree"): an app passes its own
 * credentials in (its auth schemes and principal kinds by augmenting AuthSchemes / PrincipalKinds,
 * their OpenAPI security as `openApi.security`, its secret headers as `requestLogging.secretHeaders`),
 * and no code in libs names them. "Code" is identifiers, property names and the words of string and
 * template literals; comments may explain with an example. Migrations are history and not looked at.
 * Likewise an app reads and checks its own environment variables (todo-api's billing.config.ts) and
 * libs/config only what both services read.
 */

/** Each app's credential vocabulary that cannot be read from its declarations below: headers, token prefixes, counter names. */
const KNOWN_APP_WORDS = {
  'todo-api': ['api-key', 'jwt-or-api-key', 'admin-key', 'admin', 'apiKey', 'apiKeyHeader', 'adminKey', 'x-api-key', 'x-admin-api-key', 'stripe-signature', 'tdk_'],
  'feedback-export': ['site-read', 'site-write', 'portfolio', 'feedback-token', 'feedback-mcp', 'site', 'site-token', 'portfolio-token', 'siteToken', 'portfolioToken', 'sk_', 'wk_', 'ok_'],
};

/**
 * Where libs may hold one of those words, and why: the same word meaning something both apps share.
 * An entry that no longer matches fails the second test, so this list cannot outlive its reason.
 */
const SHARED_MEANING: Array<{ file: string; word: string; why: string }> = [
  { file: 'libs/identity/src/accounts/account.rows.ts', word: 'admin', why: 'a value of the shared users table’s privilege column, not the administrator key’s principal' },
  { file: 'libs/identity/src/sign-in/dto/auth-responses.dto.ts', word: 'admin', why: 'the same privilege column, as the sign-in answer documents it' },
  { file: 'libs/common/src/errors/error-code.enum.ts', word: 'tdk_', why: 'the one ErrorCode catalogue both services answer from, with its documented examples' },
  { file: 'libs/webhooks/src/webhook-owner-kinds.ts', word: 'site', why: 'a value of the shared webhook_endpoints table’s owner_kind column (the feedback_events trigger writes it, todo-api’s account export reads it), not the site token’s principal kind' },
  { file: 'libs/common/src/errors/error-code.enum.ts', word: 'x-api-key', why: 'the one ErrorCode catalogue both services answer from, with its documented examples' },
];

const ROOT = process.cwd();
/** What the vocabulary scans read: unit tests too (libs' own specs are code in libs/), never the migrations. */
const VOCABULARY_SCAN = { specs: true, skip: ['migrations'] };

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2023, true);
}

function each(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => each(child, visit));
}

function propertyName(name: ts.PropertyName | undefined): string | undefined {
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/**
 * What an app declares of its own, read from its sources: the members of its `declare module
 * '#libs/common'` augmentations (its schemes and principal kinds), and of each AppSecurity it passes
 * in, the security schemes' names and the headers they name.
 */
function declaredBy(app: string): string[] {
  const words: string[] = [];
  for (const file of sourceFiles(join(ROOT, 'apps', app), VOCABULARY_SCAN).map(parse)) {
    each(file, (node) => {
      if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name) && node.name.text === '#libs/common') {
        each(node, (inner) => {
          if (ts.isInterfaceDeclaration(inner)) words.push(...inner.members.map((member) => propertyName(member.name)!));
        });
      }
      if (ts.isVariableDeclaration(node) && node.type?.getText() === 'AppSecurity' && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
        const schemes = node.initializer.properties.find((property) => propertyName(property.name) === 'schemes');
        if (!schemes || !ts.isPropertyAssignment(schemes) || !ts.isObjectLiteralExpression(schemes.initializer)) return;
        for (const scheme of schemes.initializer.properties) {
          words.push(propertyName(scheme.name)!);
          if (!ts.isPropertyAssignment(scheme) || !ts.isObjectLiteralExpression(scheme.initializer)) continue;
          const header = scheme.initializer.properties.find((property) => propertyName(property.name) === 'name');
          if (header && ts.isPropertyAssignment(header) && ts.isStringLiteral(header.initializer)) words.push(header.initializer.text);
        }
      }
    });
  }
  return words;
}

/**
 * The words of a file's code: `all`, its identifiers and property names and the words of its string
 * and template literals; `whole`, its property names and the whole text of each literal. A plain
 * word (an app's `admin` or `site`) counts only in `whole`: as a variable or in a sentence it is English.
 */
function codeWords(file: ts.SourceFile): { all: Set<string>; whole: Set<string> } {
  const all = new Set<string>();
  const whole = new Set<string>();
  each(file, (node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) all.add(node.text);
    if ((ts.isPropertySignature(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) && propertyName(node.name)) whole.add(propertyName(node.name)!);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      whole.add(node.text);
      for (const word of node.text.split(/[^A-Za-z0-9_-]+/)) if (word) all.add(word);
    }
  });
  return { all, whole };
}

/** Each app's vocabulary, headers in lower case (HTTP's header names have no case). */
function appVocabulary(): Array<{ app: string; word: string }> {
  return Object.entries(KNOWN_APP_WORDS).flatMap(([app, known]) =>
    [...new Set([...known, ...declaredBy(app)].map((word) => (/^x-/i.test(word) ? word.toLowerCase() : word)))].map((word) => ({ app, word })),
  );
}

/** Every place code in libs names an app's vocabulary: `<file>: <word>`, and whose word it is. */
function appWordsInLibs(): Array<{ at: string; app: string }> {
  const vocabulary = appVocabulary();
  const found = new Map<string, string>();
  for (const path of sourceFiles(join(ROOT, 'libs'), VOCABULARY_SCAN)) {
    const { all, whole } = codeWords(parse(path));
    const lowered = new Set([...all].map((word) => word.toLowerCase()));
    for (const { app, word } of vocabulary) {
      const named = /^[a-z]+$/.test(word) ? whole.has(word) : word.startsWith('x-') ? lowered.has(word) : all.has(word);
      if (named) found.set(`${relative(ROOT, path)}: ${word}`, app);
    }
  }
  return [...found].map(([at, app]) => ({ at, app }));
}

/** Each app's environment variables that cannot be read from its `read*Variable` calls: its variables' prefixes. */
const KNOWN_APP_VARIABLE_PREFIXES = {
  'todo-api': ['STRIPE_'],
  'feedback-export': [] as string[],
};

const VARIABLE_READERS = new Set(['readVariable', 'readUrlVariable', 'readIntVariable']);

/** The variables an app reads and checks itself: the names it passes to libs/config's readVariable, readUrlVariable, readIntVariable. */
function variablesReadBy(app: string): string[] {
  const variables: string[] = [];
  for (const file of sourceFiles(join(ROOT, 'apps', app), VOCABULARY_SCAN).map(parse)) {
    each(file, (node) => {
      if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || !VARIABLE_READERS.has(node.expression.text)) return;
      const name = node.arguments[1];
      if (name && ts.isStringLiteral(name)) variables.push(name.text);
    });
  }
  return variables;
}

/** Every place code in libs names an app's own environment variable: `<file>: <variable>`. */
function appVariablesInLibs(): string[] {
  const apps = Object.entries(KNOWN_APP_VARIABLE_PREFIXES).map(([app, prefixes]) => ({ variables: new Set(variablesReadBy(app)), prefixes }));
  const found: string[] = [];
  for (const path of sourceFiles(join(ROOT, 'libs'), VOCABULARY_SCAN)) {
    for (const word of codeWords(parse(path)).all) {
      if (apps.some(({ variables, prefixes }) => variables.has(word) || prefixes.some((prefix) => word.startsWith(prefix)))) found.push(`${relative(ROOT, path)}: ${word}`);
    }
  }
  return found;
}

describe('libs/ reads no app’s own settings', () => {
  it('reads each app’s variables (a check that sees nothing would pass anything)', () => {
    expect(variablesReadBy('todo-api')).toEqual(expect.arrayContaining(['ADMIN_API_KEY', 'STRIPE_SECRET_KEY', 'STRIPE_API_BASE', 'STRIPE_TIMEOUT_MS']));
  });

  it('no code under libs/ (migrations aside) names a variable one app reads itself (todo-api’s ADMIN_API_KEY, STRIPE_*)', () => {
    expect(appVariablesInLibs()).toEqual([]);
  });
});

describe('libs/ names no app’s own vocabulary', () => {
  it('reads each app’s declarations (a check that sees nothing would pass anything)', () => {
    expect(declaredBy('todo-api')).toEqual(expect.arrayContaining(['api-key', 'jwt-or-api-key', 'admin-key', 'admin', 'todo-mcp', 'apiKey', 'X-API-Key', 'adminKey', 'X-Admin-API-Key']));
    expect(declaredBy('feedback-export')).toEqual(expect.arrayContaining(['site-read', 'site', 'portfolio', 'siteToken']));
  });

  it('no code under libs/ (migrations aside) names an app’s schemes, principal kinds, security schemes, headers or token prefixes', () => {
    const shared = new Set(SHARED_MEANING.map(({ file, word }) => `${file}: ${word}`));
    expect(appWordsInLibs().filter(({ at }) => !shared.has(at))).toEqual([]);
  });

  it('lists as shared only words that libs still holds', () => {
    const hits = new Set(appWordsInLibs().map(({ at }) => at));
    expect(SHARED_MEANING.filter(({ file, word }) => !hits.has(`${file}: ${word}`))).toEqual([]);
  });
});
