import type {
  HeadersObject,
  MediaTypeObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
  SecuritySchemeObject,
  TagObject,
} from '@nestjs/swagger';
import { getSchemaPath } from '@nestjs/swagger';
import type { AuthScheme } from '../auth/auth-scheme.decorator.js';
import type { RouteEntry } from '../auth/route-table.js';
import { ErrorCode, publicCodeOf, statusOf } from '../errors/error-code.enum.js';
import { BODY_METHODS, JSON_MEDIA_TYPES, refusesOtherBodies } from '../http/body-media-type.guard.js';
import { OVERLOAD_EXEMPT_PATHS } from '../http/overload-gate.service.js';
import { ErrorDetailDto, ErrorEnvelopeDto, errorExample } from './envelope.schemas.js';

/**
 * Everything the document says that follows from the route table rather than from one
 * route's decorators: security (from @UseAuth), 429 answers and RateLimit headers (from
 * @RateLimit), 415 on every route that refuses bodies of other types (@AcceptsBody), 413 on every
 * route that reads a body, 503 with Retry-After on every route that needs the database (all but
 * @WithoutDatabase) or has a fail-closed rate limit, `error.code` narrowed to each error answer's
 * codes (an enum a generated client can switch on), 405 for the whole document (info.description),
 * the headers every answer carries, examples built from the schemas, and the contract route itself
 * (served by SwaggerModule, not a Nest route).
 */

/** The shared account schemes (an app adds its own, AppSecurity); a document keeps only those its routes use. */
const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  jwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token (HS256 JWT, 15 minutes) from signup, login or refresh of the todo service; the same token works on both services',
  },
};

/** Any one requirement of the list is enough (OpenAPI's "or"). */
const SECURITY_OF: Partial<Record<AuthScheme, SecurityRequirementObject[]>> = {
  public: [],
  jwt: [{ jwt: [] }],
  // GET /metrics is for the operators' scraper and left out of the document (@ApiExcludeController).
  'metrics-token': [],
};

const HEADERS: HeadersObject = {
  'X-Request-Id': {
    description: 'Id of this request (the gateway’s when well-formed, else a new one); quote it when reporting a problem',
    schema: { type: 'string', example: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f' },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer', example: 60 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer', example: 59 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer', example: 42 } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', example: 42 } },
};

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The OpenAPI side of an app's own auth schemes: their security schemes and each scheme's requirements. */
export interface AppSecurity {
  schemes: Record<string, SecuritySchemeObject>;
  requirements: Partial<Record<AuthScheme, SecurityRequirementObject[]>>;
}

export interface OpenApiFinishing {
  tags: TagObject[];
  security?: AppSecurity;
  /** Base URL of the service: the document's server and the base of its licence link. */
  publicBaseUrl: string;
}

/** `/api/v1/sites/:siteId` as OpenAPI writes it: `/api/v1/sites/{siteId}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationsOf(document: OpenAPIObject): OperationObject[] {
  return Object.values(document.paths).flatMap((item) => METHODS.map((method) => item[method]).filter((op): op is OperationObject => op !== undefined));
}

export function finishOpenApiDocument(document: OpenAPIObject, routes: RouteEntry[], finishing: OpenApiFinishing): OpenAPIObject {
  const rateLimited = new Map<OperationObject, RouteEntry['rateLimit']>();
  for (const route of routes) {
    const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as (typeof METHODS)[number]];
    if (!operation || route.scheme === 'NONE') continue; // excluded from the document (@ApiExcludeEndpoint)
    const security = finishing.security?.requirements[route.scheme] ?? SECURITY_OF[route.scheme];
    if (!security) throw new Error(`Auth scheme '${route.scheme}' of ${route.method} ${route.path} has no OpenAPI security: pass it in openApi.security`);
    operation.security = security;
    if (route.rateLimit) rateLimited.set(operation, route.rateLimit);
    const mediaTypes = route.bodyMediaTypes ?? JSON_MEDIA_TYPES;
    if (refusesOtherBodies(route.method, mediaTypes) && !operation.responses['415']) {
      const takes = mediaTypes.filter((type) => type !== 'application/*+json').join(' or ');
      operation.responses['415'] = {
        description: `Error: UNSUPPORTED_MEDIA_TYPE (a body that is not ${takes})`,
        content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) }, example: errorExample(ErrorCode.UNSUPPORTED_MEDIA_TYPE) } },
      };
    }
    if (BODY_METHODS.has(route.method.toUpperCase())) addErrorCode(operation, ErrorCode.PAYLOAD_TOO_LARGE, 'a body over the route’s size limit', false);
    if (answersServiceUnavailable(route)) addErrorCode(operation, ErrorCode.SERVICE_UNAVAILABLE, 'the database or the rate-limit store is unreachable; retry after Retry-After', true);
    if (answersServiceOverloaded(route)) addOverloadAnswer(operation);
  }
  addContractRoute(document);
  document.info.description = `${document.info.description ?? ''} ${METHOD_NOT_ALLOWED_NOTE}`.trim();

  for (const operation of operationsOf(document)) {
    const limit = rateLimited.get(operation);
    if (limit) {
      const existing = operation.responses['429'] as ResponseObject | undefined;
      const rule = `more than ${limit.limit} requests per ${limit.windowSeconds} s`;
      operation.responses['429'] = {
        ...existing,
        description: existing ? `${existing.description} (${rule})` : `Error: RATE_LIMITED (${rule})`,
        content: existing?.content ?? { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) }, example: errorExample(ErrorCode.RATE_LIMITED) } },
      };
    }
    for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
      const headers: HeadersObject = { ...response.headers, 'X-Request-Id': ref('X-Request-Id') };
      if (status === '503' && errorCodesOf(response).some((code) => RETRY_AFTER_503_CODES.has(code))) {
        headers['Retry-After'] ??= ref('Retry-After');
      }
      narrowErrorCodes(response);
      if (status === '429') {
        headers['Retry-After'] = ref('Retry-After');
        for (const name of RATE_LIMIT_HEADERS) headers[name] = ref(name);
      } else if (limit && status.startsWith('2')) {
        for (const name of RATE_LIMIT_HEADERS) headers[name] = ref(name);
      }
      response.headers = headers;
      if (status.startsWith('2')) addExamples(response.content, document);
    }
    const body = operation.requestBody as { content?: Record<string, MediaTypeObject> } | undefined;
    addExamples(body?.content, document);
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.in === 'path' && parameter.example === undefined && parameter.schema) parameter.example = exampleOf(parameter.schema, document);
    }
  }

  const used = new Set(operationsOf(document).flatMap((operation) => (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))));
  document.components = {
    ...document.components,
    securitySchemes: Object.fromEntries(Object.entries({ ...SECURITY_SCHEMES, ...finishing.security?.schemes }).filter(([name]) => used.has(name))),
    headers: HEADERS,
  };
  const tagged = new Set(operationsOf(document).flatMap((operation) => operation.tags ?? []));
  document.tags = finishing.tags.filter((tag) => tagged.has(tag.name));
  document.info.license = { name: 'Proprietary: use under the operator’s terms', url: `${finishing.publicBaseUrl}/api/docs` };
  return document;
}

/** 405 cannot be put on an operation (it answers the methods a path does not list): said once for the document. */
const METHOD_NOT_ALLOWED_NOTE =
  'A method a path does not list answers 405 `METHOD_NOT_ALLOWED` (the error envelope) with an `Allow` header naming the methods it does list.';

/** A route that can answer 503 SERVICE_UNAVAILABLE: it needs the database, or its rate limit refuses while its counter store is down. */
function answersServiceUnavailable(route: RouteEntry): boolean {
  return route.database !== false || (route.rateLimit !== undefined && (route.rateLimit.storeOutage ?? 'fail-closed') === 'fail-closed');
}

/** A route admission control may refuse (every route but OVERLOAD_EXEMPT_PATHS): 503 SERVICE_OVERLOADED, before the route runs. */
function answersServiceOverloaded(route: RouteEntry): boolean {
  return !OVERLOAD_EXEMPT_PATHS.includes(route.path);
}

/** The 503 codes whose answer always carries Retry-After. */
const RETRY_AFTER_503_CODES = new Set([ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.SERVICE_DEGRADED, ErrorCode.SERVICE_OVERLOADED].map(publicCodeOf));

const OVERLOADED_WHEN = 'the replica is overloaded and refused the request before any work; retry after Retry-After';

/**
 * Admission control answers in the error envelope before routing, so on an operation whose 503 is a
 * JSON-RPC error (the MCP endpoints) one schema cannot hold both: there the description says it.
 */
function addOverloadAnswer(operation: OperationObject): void {
  const existing = operation.responses['503'] as ResponseObject | undefined;
  if (existing && errorMedia(existing)?.jsonRpc) {
    existing.description = `${existing.description}; ${publicCodeOf(ErrorCode.SERVICE_OVERLOADED)} in the error envelope ({success: false, error: {code}}), not JSON-RPC (${OVERLOADED_WHEN})`;
    return;
  }
  addErrorCode(operation, ErrorCode.SERVICE_OVERLOADED, OVERLOADED_WHEN, false);
}

type ErrorExamples = Record<string, { summary?: string; value: unknown }>;

/** The JSON-RPC error answer of an MCP endpoint (libs/mcp): its REST code sits in `error.data.code`. */
const JSON_RPC_SCHEMAS = '#/components/schemas/';
const JSON_RPC_ERROR = `${JSON_RPC_SCHEMAS}JsonRpcErrorResponseDto`;

/** An error answer's JSON body and where its code sits: the envelope's `error.code`, or a JSON-RPC error's `error.data.code`. */
function errorMedia(response: ResponseObject | undefined): { media: MediaTypeObject; jsonRpc: boolean } | undefined {
  const media = response?.content?.['application/json'];
  const schema = media?.schema as (ReferenceObject & SchemaObject) | undefined;
  const refs = [schema?.$ref, (schema?.allOf?.[0] as ReferenceObject | undefined)?.$ref];
  if (refs.includes(getSchemaPath(ErrorEnvelopeDto))) return { media: media!, jsonRpc: false };
  if (refs.includes(JSON_RPC_ERROR)) return { media: media!, jsonRpc: true };
  return undefined;
}

/** The public codes an error answer documents: those of its examples (one per code, from @ApiErrors) or of its one example. */
function errorCodesOf(response: ResponseObject): string[] {
  const found = errorMedia(response);
  if (!found) return [];
  const values = found.media.examples ? Object.values(found.media.examples as ErrorExamples).map((example) => example.value) : [found.media.example];
  const codes = values.map((value) => {
    const error = (value as { error?: { code?: unknown; data?: { code?: unknown } } } | undefined)?.error;
    return found.jsonRpc ? error?.data?.code : error?.code;
  });
  return codes.every((code): code is string => typeof code === 'string') ? [...new Set(codes)] : [];
}

/**
 * Adds a code to the operation's answer of its status (creating the answer, or adding an example
 * and naming the code in its description). `inRoute`: raised by the route itself, so an MCP
 * endpoint answers it as a JSON-RPC error (McpErrorFilter); otherwise (the body parser) as the envelope.
 */
function addErrorCode(operation: OperationObject, code: ErrorCode, when: string, inRoute: boolean): void {
  const status = String(statusOf(code));
  const existing = operation.responses[status] as ResponseObject | undefined;
  const name = publicCodeOf(code);
  if (!existing) {
    const jsonRpc = inRoute && Object.values(operation.responses).some((response) => errorMedia(response as ResponseObject)?.jsonRpc);
    const example = jsonRpc
      ? { jsonrpc: '2.0', id: null, error: { code: statusOf(code) >= 500 ? -32603 : -32000, message: `${name}: ${errorExample(code).error.message}`, data: { code: name } } }
      : errorExample(code);
    operation.responses[status] = {
      description: jsonRpc ? `${name} in error.data.code (${when})` : `Error: ${name} (${when})`,
      content: { 'application/json': { schema: { $ref: jsonRpc ? JSON_RPC_ERROR : getSchemaPath(ErrorEnvelopeDto) }, examples: { [name]: { summary: name, value: example } } } },
    };
    return;
  }
  const found = errorMedia(existing);
  const known = errorCodesOf(existing);
  if (!found || known.length === 0 || known.includes(name)) return;
  const { media, jsonRpc } = found;
  const examples: ErrorExamples = (media.examples as ErrorExamples | undefined) ?? { [known[0]]: { summary: known[0], value: media.example } };
  const value = jsonRpc ? { jsonrpc: '2.0', id: null, error: { code: -32603, message: `${name}: ${errorExample(code).error.message}`, data: { code: name } } } : errorExample(code);
  media.examples = { ...examples, [name]: { summary: name, value } };
  delete media.example;
  existing.description = `${existing.description}; ${name} (${when})`;
}

/**
 * The code of an error answer as the enum of its codes (`error.code` of the envelope,
 * `error.data.code` of a JSON-RPC error): the shared schema stays, `allOf` only narrows the code,
 * so a generated client can switch over an operation's codes exhaustively.
 */
function narrowErrorCodes(response: ResponseObject): void {
  const found = errorMedia(response);
  const codes = errorCodesOf(response);
  if (!found || codes.length === 0) return;
  // Each level keeps its shared schema beside the narrowing (allOf), so an example's other properties stay known.
  const withCode = (schema: string): SchemaObject => ({
    allOf: [{ $ref: schema }, { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: [...codes].sort() } } }],
  });
  const error: SchemaObject = found.jsonRpc
    ? { allOf: [{ $ref: `${JSON_RPC_SCHEMAS}JsonRpcErrorObjectDto` }, { type: 'object', required: ['data'], properties: { data: withCode(`${JSON_RPC_SCHEMAS}JsonRpcErrorDataDto`) } }] }
    : withCode(getSchemaPath(ErrorDetailDto));
  found.media.schema = { allOf: [{ $ref: found.jsonRpc ? JSON_RPC_ERROR : getSchemaPath(ErrorEnvelopeDto) }, { type: 'object', required: ['error'], properties: { error } }] };
}

/** GET /api/v1/openapi.json is served by SwaggerModule, outside Nest's routes: described here. */
function addContractRoute(document: OpenAPIObject): void {
  document.paths['/api/v1/openapi.json'] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document (OpenAPI 3.0.3), not wrapped in the envelope',
      tags: ['Contract'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } } },
              example: { openapi: '3.0.3', info: { title: document.info.title, version: document.info.version }, paths: {} },
            },
          },
        },
      },
    },
  };
}

function addExamples(content: Record<string, MediaTypeObject> | undefined, document: OpenAPIObject): void {
  for (const [type, media] of Object.entries(content ?? {})) {
    if (media.example !== undefined || media.examples !== undefined || !media.schema) continue;
    if (type === 'application/json') media.example = exampleOf(media.schema, document);
  }
}

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: '3b241101-e2bb-4255-8caf-4136c566a962',
  'date-time': '2026-03-14T09:26:53.000Z',
  email: 'ada@example.com',
  uri: 'https://example.com/page',
  password: 'correct horse battery staple',
};

/** An example value for a schema: its own `example`, else one built from its parts. */
function exampleOf(schema: SchemaObject | ReferenceObject, document: OpenAPIObject, depth = 0): unknown {
  if (depth > 12) return undefined;
  if ('$ref' in schema) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = document.components?.schemas?.[name];
    return target ? exampleOf(target, document, depth + 1) : undefined;
  }
  if (schema.example !== undefined) return schema.example;
  // A nullable value without its own example is shown as null (what most records have there) where
  // OpenAPI 3.0.3 lets null through: only beside an explicit type.
  if (schema.nullable && schema.type && !schema.allOf) return null;
  if (schema.oneOf?.length) return exampleOf(schema.oneOf[0], document, depth + 1);
  if (schema.anyOf?.length) return exampleOf(schema.anyOf[0], document, depth + 1);
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((part) => exampleOf(part, document, depth + 1));
    return parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part)) ? Object.assign({}, ...parts) : parts[0];
  }
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'object': {
      const example: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const value = exampleOf(property, document, depth + 1);
        if (value !== undefined) example[name] = value;
      }
      return example;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items, document, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string': {
      const text = (schema.format && FORMAT_EXAMPLES[schema.format]) ?? 'text';
      return text.padEnd(schema.minLength ?? 0, 'x');
    }
    default:
      return schema.properties ? exampleOf({ ...schema, type: 'object' }, document, depth + 1) : undefined;
  }
}
