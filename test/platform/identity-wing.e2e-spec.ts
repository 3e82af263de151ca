import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * Identity has one home, libs/identity (CONTRIBUTING, "Map of the tree"): accounts, sign-in,
 * sessions, access tokens, the OAuth authorization server (todo-api mounts it) and the OAuth
 * resource side (both apps' MCP endpoints verify with it). An app declares what is its own (its
 * resource, scopes and consent choice) and passes it in; libs name no app (libs-vocabulary).
 * Each app's MCP auth (its guard and its protected-resource metadata) sits in the app's mcp/.
 */

const ROOT = process.cwd();

interface Source {
  path: string;
  file: ts.SourceFile;
}

function sources(dir: string): Source[] {
  return sourceFiles(join(ROOT, dir)).map((path) => ({ path: relative(ROOT, path), file: ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2023, true) }));
}

function each(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => each(child, visit));
}

/** The module specifiers a file imports or re-exports. */
function specifiers(file: ts.SourceFile): string[] {
  return file.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? [statement.moduleSpecifier.text] : [],
  );
}

const ROUTE_DECORATORS = new Set(['Controller', 'Get', 'Post', 'Put', 'Patch', 'Delete', 'All']);

/** The paths a file's `@Controller('…')` and route decorators name (each string, or each of an array's). */
function controllerPaths(file: ts.SourceFile): string[] {
  const paths: string[] = [];
  each(file, (node) => {
    if (!ts.isDecorator(node) || !ts.isCallExpression(node.expression) || !ts.isIdentifier(node.expression.expression) || !ROUTE_DECORATORS.has(node.expression.expression.text)) return;
    const [path] = node.expression.arguments;
    if (path && ts.isStringLiteral(path)) paths.push(path.text);
    if (path && ts.isArrayLiteralExpression(path)) paths.push(...path.elements.filter(ts.isStringLiteral).map((element) => element.text));
  });
  return paths;
}

/** Names of the classes a file declares. */
function classNames(file: ts.SourceFile): string[] {
  const names: string[] = [];
  each(file, (node) => {
    if (ts.isClassDeclaration(node) && node.name) names.push(node.name.text);
  });
  return names;
}

/** The classes a file's classes extend. */
function heritage(file: ts.SourceFile): string[] {
  const names: string[] = [];
  each(file, (node) => {
    if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ExtendsKeyword) names.push(...node.types.map((type) => type.expression.getText()));
  });
  return names;
}

/** The routes of the identity wing: sign-in, sessions, the authorization server, the account's connected apps. */
const IDENTITY_ROUTES = /^\/?(api\/v1\/auth(\/sessions)?|api\/v1\/account\/connected-apps|oauth(\/.*)?|\.well-known\/(oauth-authorization-server|openid-configuration))$/;

/** The libraries identity is built on: the authorization server and the access-token strategy. */
const IDENTITY_LIBRARIES = ['oidc-provider', 'passport-jwt', '@nestjs/passport'];

const APPS = sources('apps');

describe('identity code lives only in the wing (libs/identity)', () => {
  it('reads the apps (a check that sees nothing would pass anything)', () => {
    expect(APPS.length).toBeGreaterThan(50);
    expect(APPS.flatMap(({ file }) => controllerPaths(file)).length).toBeGreaterThan(10);
  });

  it('no app serves a sign-in, session, authorization-server or connected-apps route of its own', () => {
    const found = APPS.flatMap(({ path, file }) => controllerPaths(file).filter((route) => IDENTITY_ROUTES.test(route)).map((route) => `${path}: '${route}'`));
    expect(found).toEqual([]);
  });

  it('no app builds on the authorization server or the access-token strategy', () => {
    const found = APPS.flatMap(({ path, file }) => specifiers(file).filter((specifier) => IDENTITY_LIBRARIES.includes(specifier)).map((specifier) => `${path} -> ${specifier}`));
    expect(found).toEqual([]);
  });

  it('no app has a folder for identity (auth, sessions, oauth, mcp-auth)', () => {
    const found = APPS.map(({ path }) => path.split('/').slice(0, 4).join('/')).filter((folder, i, all) => all.indexOf(folder) === i && /^apps\/[^/]+\/src\/(auth|sessions|oauth|mcp-auth)$/.test(folder));
    expect(found).toEqual([]);
  });
});

describe('each app’s MCP auth is in its mcp/ folder', () => {
  /** A protected-resource metadata route or an MCP guard: declared here, or built on the wing's shared ones. */
  const mcpAuth = APPS.filter(
    ({ file }) =>
      controllerPaths(file).some((route) => route.startsWith('.well-known/oauth-protected-resource')) ||
      classNames(file).some((name) => /Mcp.*Guard$/.test(name)) ||
      heritage(file).some((name) => name === 'ProtectedResourceController' || name === 'OAuthResourceGuard'),
  );

  it('finds both apps’ MCP guard and protected-resource metadata', () => {
    expect(mcpAuth.map(({ path }) => path.split('/')[1]).sort()).toEqual(['feedback-export', 'feedback-export', 'todo-api', 'todo-api']);
  });

  it('keeps them in apps/<app>/src/mcp/', () => {
    expect(mcpAuth.map(({ path }) => path).filter((path) => !/^apps\/[^/]+\/src\/mcp\//.test(path))).toEqual([]);
  });
});

describe('the wing’s edges', () => {
  /** Files of `from` whose imports resolve into a file under `into`. */
  function importsInto(from: string, into: string): string[] {
    const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, paths: { '#libs/*': ['./libs/*/src/index.ts'] }, baseUrl: ROOT };
    return sources(from).flatMap(({ path, file }) =>
      specifiers(file).flatMap((specifier) => {
        const resolved = ts.resolveModuleName(specifier, join(ROOT, path), options, ts.sys).resolvedModule;
        return resolved && resolved.resolvedFileName.startsWith(join(ROOT, into) + '/') ? [`${path} -> ${specifier}`] : [];
      }),
    );
  }

  it('libs import nothing from either app, and feedback-export nothing from todo-api', () => {
    expect(importsInto('libs', 'apps')).toEqual([]);
    expect(importsInto('apps/feedback-export', 'apps/todo-api')).toEqual([]);
  });

  it('todo-api takes from feedback-export only feedback’s declaration to the authorization server it mounts (resource, scopes, consent choice)', () => {
    expect(importsInto('apps/todo-api', 'apps/feedback-export')).toEqual(['apps/todo-api/src/todo-api.module.ts -> ../../feedback-export/src/mcp/feedback-mcp-oauth-resource.js']);
  });
});
