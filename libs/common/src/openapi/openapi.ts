import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { INestApplication } from '@nestjs/common';
import type { Request, Response } from 'express';
import { escape } from 'html-escaper';
import { DocumentBuilder, OpenAPIObject, SwaggerModule, type TagObject } from '@nestjs/swagger';
import { listRoutes } from '../auth/route-table.js';
import { HTML_PAGE_HEADERS } from '../http/html-page.js';
import { ErrorDetailDto, ErrorEnvelopeDto, FieldErrorDto } from './envelope.schemas.js';
import { finishOpenApiDocument, type AppSecurity } from './openapi-finish.js';

export type { AppSecurity } from './openapi-finish.js';

export interface OpenApiInfo {
  title: string;
  description: string;
  serverUrl: string;
  /** Every tag the app's routes use, with what it groups (the document lists those in use). */
  tags: TagObject[];
  /** The OpenAPI side of the app's own auth schemes (those it adds to AuthSchemes). */
  security?: AppSecurity;
}

/** Tags of routes every app has (libs/common). */
const SHARED_TAGS: TagObject[] = [
  { name: 'Status', description: 'Health of the service and its database' },
  { name: 'Contract', description: 'This OpenAPI document' },
];

export function buildOpenApiDocument(app: INestApplication, info: OpenApiInfo): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle(info.title)
    .setDescription(info.description)
    .setVersion('1.0.0')
    .addServer(info.serverUrl)
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelopeDto, ErrorDetailDto, FieldErrorDto] });
  return finishOpenApiDocument(document, listRoutes(app), { tags: [...info.tags, ...SHARED_TAGS], publicBaseUrl: info.serverUrl, security: info.security });
}

const DOCS_PATH = '/api/docs';
const JSON_DOCUMENT_PATH = '/api/v1/openapi.json';
/** The JSON document seen from the folder of the page's files (/api/docs/). */
const JSON_DOCUMENT_FROM_DOCS = '../v1/openapi.json';

/** swagger-ui-dist, as @nestjs/swagger resolves it (the copy its version was built for). */
function swaggerUiDist(): string {
  const require = createRequire(import.meta.url);
  const absolutePath = createRequire(require.resolve('@nestjs/swagger'))('swagger-ui-dist/absolute-path.js') as () => string;
  return absolutePath();
}

/**
 * The only files of the reference page, by the name it asks for: Swagger UI's bundle, stylesheet and icons, and the
 * page's own start script and stylesheet. Nothing else of the package (its package.json, sources,
 * maps, sample pages) is served.
 */
function docsFiles(): Map<string, string> {
  const dist = swaggerUiDist();
  const own = (name: string) => fileURLToPath(new URL(`./public/${name}`, import.meta.url));
  return new Map([
    ...['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'].map((name) => [name, `${dist}/${name}`] as [string, string]),
    ['api-docs.js', own('api-docs.js')],
    ['api-docs.css', own('api-docs.css')],
  ]);
}

/**
 * The reference page: no inline script or style, so its CSP can be strict (scripts and styles from
 * this origin only; Swagger UI's icons are data: images; "Try it out" calls the document's server).
 * Its links are relative to `base` (where the page's own files are, seen from its URL), so the page
 * also works behind the gateway's path prefixes (/todo/, /feedback/).
 */
function docsPage(title: string, base: string): string {
  const file = (name: string) => `${base}${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="stylesheet" href="${file('swagger-ui.css')}">
<link rel="stylesheet" href="${file('api-docs.css')}">
<link rel="icon" type="image/png" href="${file('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${file('favicon-16x16.png')}" sizes="16x16">
<script src="${file('swagger-ui-bundle.js')}" defer></script>
<script src="${file('api-docs.js')}" defer></script>
</head>
<body data-openapi-url="${file(JSON_DOCUMENT_FROM_DOCS)}">
<div id="swagger-ui"></div>
</body>
</html>
`;
}

function docsHeaders(serverUrl: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(serverUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { ...HTML_PAGE_HEADERS, 'Cache-Control': 'no-cache', 'Content-Security-Policy': csp };
}

/** Serves the raw document at /api/v1/openapi.json (and .yaml) and Swagger UI at /api/docs. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  // The documents only: Swagger UI's own setup would serve all of swagger-ui-dist and an inline script.
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, {
    ui: false,
    jsonDocumentUrl: JSON_DOCUMENT_PATH.slice(1),
    yamlDocumentUrl: 'api/v1/openapi.yaml',
  });
  const http = app.getHttpAdapter();
  const title = `${document.info.title} — API reference`;
  // /api/docs/ holds the page's files beside it; from /api/docs they are under docs/.
  const pages = { folder: docsPage(title, './'), bare: docsPage(title, 'docs/') };
  const headers = docsHeaders(document.servers?.[0]?.url ?? 'http://localhost');
  // One route answers both spellings (Express matches a trailing slash unless strict routing is on).
  http.get(DOCS_PATH, (request: Request, response: Response) => {
    response.set(headers).status(200).send(request.path.endsWith('/') ? pages.folder : pages.bare);
  });
  for (const [name, path] of docsFiles()) {
    http.get(`${DOCS_PATH}/${name}`, (_request: Request, response: Response) => response.sendFile(path, { maxAge: '1h' }));
  }
}
