import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

type Json = Record<string, any>;

export interface FuzzOperation {
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/todos/{todoId}`. */
  path: string;
  operationId: string;
  /** Security scheme names of the operation (empty: public). */
  security: string[];
  pathParams: Json[];
  queryParams: Json[];
  headerParams: Json[];
  bodySchema?: Json;
  /** The operation answers raw (HTML, script, SSE, JSON-RPC) rather than the envelope on success. */
  raw: boolean;
}

export type AuthMode = 'valid' | 'none' | 'garbage' | 'huge' | 'non-ascii' | 'alg-none' | 'wrong-scheme' | 'empty-bearer';

/** One generated request, before credentials are attached (they are resolved when it is sent). */
export interface FuzzCase {
  operationId: string;
  method: string;
  path: string;
  auth: AuthMode;
  headers: Record<string, string>;
  /** JSON text, or its gzip bytes (sent with `Content-Encoding: gzip`). */
  body?: string | Buffer;
  bodyKind: string;
}

/** Values a fuzzer should sometimes use for a path parameter or body property, so requests reach the service layer. */
export interface FuzzHints {
  /** Real ids per path parameter name (per operation id first, then by name). */
  pathIds(operationId: string, name: string): string[];
  /** Known-good values for a body property of an operation. */
  body(operationId: string, property: string): unknown[];
}

function resolve(document: Json, schema: Json | undefined): Json | undefined {
  let current = schema;
  for (let depth = 0; current && current.$ref && depth < 10; depth++) {
    current = document.components.schemas[String(current.$ref).replace('#/components/schemas/', '')];
  }
  if (current?.allOf?.length === 1 && !current.properties) return { ...resolve(document, current.allOf[0]), nullable: current.nullable };
  return current;
}

/** Every operation of an OpenAPI document, with parameters and request body schema resolved. */
export function operationsOf(document: Json): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters: Json[] = operation.parameters ?? [];
      const content = operation.requestBody?.content ?? {};
      const success = Object.entries<Json>(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      const raw = success.some(([, response]) => response.content && !response.content['application/json']) || /\/mcp$|\/events$|\/openapi\.json$/.test(path);
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        security: (operation.security ?? []).flatMap((entry: Json) => Object.keys(entry)),
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        headerParams: parameters.filter((p) => p.in === 'header'),
        bodySchema: content['application/json'] ? resolve(document, content['application/json'].schema) : undefined,
        raw,
      });
    }
  }
  return operations;
}

// ---- value arbitraries ----------------------------------------------------------------

/** encodeURIComponent that survives lone surrogates (fast-check's strings include them). */
export function encode(value: string): string {
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}

const UNICODE_SAMPLES = [
  'ünïcödé', '😀🎉👩‍👩‍👧‍👦', 'שלום עולם', 'مرحبا', '\u202Eevil\u202C', '\u0000', 'a\u0000b', '𝕏𝕐ℤ', '\uFEFF', '\u200B', 'ｆｕｌｌ',
  '\uD800', 'Ω≈ç√∫', '<script>alert(1)</script>', "' OR 1=1 --", '"; DROP TABLE users; --', '../../etc/passwd', '%00', '${jndi:ldap://x}',
  '{{7*7}}', 'null', 'undefined', 'NaN', '-0', '\r\nX-Injected: 1', '   ', '\t\n',
];

const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.constant(-1),
  fc.constant(1e308),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...UNICODE_SAMPLES),
  fc.constant('x'.repeat(10_000)),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constant({ __proto__: { isAdmin: true } }),
  fc.constant(JSON.parse('{"__proto__": {"privilege": "admin"}, "constructor": {"prototype": {"x": 1}}}')),
  fc.constant(Array.from({ length: 60 }).reduce<unknown>((inner) => ({ a: inner }), 1)),
  fc.constant([[[[[[[[[[[]]]]]]]]]]]),
);

function stringLimits(schema: Json): { min: number; max: number } {
  return { min: schema.minLength ?? 0, max: schema.maxLength ?? 200 };
}

function edgeString(schema: Json): fc.Arbitrary<string> {
  const { min, max } = stringLimits(schema);
  return fc.oneof(
    fc.constant(''),
    fc.constant(' '.repeat(Math.max(1, min))),
    fc.constant('x'.repeat(max)),
    fc.constant('x'.repeat(max + 1)),
    fc.constant('é'.repeat(max)),
    fc.constant('😀'.repeat(Math.max(1, Math.floor(max / 2)))),
    fc.constant('😀'.repeat(max + 1)),
    fc.constantFrom(...UNICODE_SAMPLES),
    fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 64) }),
  );
}

function edgeNumber(schema: Json): fc.Arbitrary<number> {
  const values = [0, -1, 1, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 1, 1.5, -0.5, 1e-9];
  if (schema.minimum !== undefined) values.push(schema.minimum, schema.minimum - 1);
  if (schema.maximum !== undefined) values.push(schema.maximum, schema.maximum + 1);
  return fc.constantFrom(...values);
}

/** A value that satisfies the schema (as far as a schema can say), with edges at the limits. */
export function validValue(document: Json, input: Json | undefined, depth = 0, hint?: (property: string) => unknown[]): fc.Arbitrary<unknown> {
  const schema = resolve(document, input);
  if (!schema || depth > 4) return fc.constant(null);
  const nullable = schema.nullable ? [fc.constant(null)] : [];
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), ...nullable);
  if (schema.oneOf || schema.anyOf) return fc.oneof(...(schema.oneOf ?? schema.anyOf).map((s: Json) => validValue(document, s, depth + 1)));
  switch (schema.type) {
    case 'string': {
      const { min, max } = stringLimits(schema);
      let base: fc.Arbitrary<string>;
      if (schema.format === 'uuid') base = fc.uuid();
      else if (schema.format === 'email') base = fc.emailAddress().filter((e) => e.length <= max);
      else if (schema.format === 'date-time') base = fc.date({ min: new Date(Date.now() + 86_400_000), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
      else if (schema.format === 'uri') base = fc.webUrl();
      else if (schema.pattern) base = fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
      else
        base = fc.oneof(
          { weight: 6, arbitrary: fc.string({ minLength: Math.max(min, 1), maxLength: Math.max(Math.min(max, 40), Math.max(min, 1)) }).filter((s) => s.trim().length > 0) },
          { weight: 1, arbitrary: fc.constant('x'.repeat(max)) },
          { weight: 1, arbitrary: fc.constant('é'.repeat(Math.max(min, 1))) },
          { weight: 1, arbitrary: fc.constant(`مرحبا 😀 ${'ü'.repeat(Math.max(0, min - 8))}`.slice(0, Math.max(max, 1))) },
        );
      return fc.oneof(base, ...nullable);
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max), ...nullable);
    }
    case 'boolean':
      return fc.oneof(fc.boolean(), ...nullable);
    case 'array':
      return fc.array(validValue(document, schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
    default: {
      const properties: Json = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries<Json>(properties)) {
        const hinted = hint?.(name) ?? [];
        const schemaValue = validValue(document, property, depth + 1);
        record[name] = hinted.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: schemaValue }) : schemaValue;
      }
      if (Object.keys(record).length === 0) return schema.additionalProperties ? fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) : fc.constant({});
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((key: string) => key in record) });
    }
  }
}

/** A value that breaks the schema or sits on (or just past) its limits. */
function brokenValue(document: Json, input: Json | undefined): fc.Arbitrary<unknown> {
  const schema = resolve(document, input) ?? {};
  const edges: fc.Arbitrary<unknown>[] = [];
  if (schema.type === 'string') edges.push(edgeString(schema));
  if (schema.type === 'integer' || schema.type === 'number') edges.push(edgeNumber(schema), edgeNumber(schema).map(String));
  if (schema.type === 'array') edges.push(fc.constant([]), fc.constant(Array.from({ length: 101 }, (_, i) => ({ n: i + 1, title: 't', html: '' }))));
  return edges.length ? fc.oneof(junkValue, ...edges) : junkValue;
}

const MALFORMED_JSON = ['{"a":', '{', '}{', "{'a': 1}", '{"a":1}}', '\uFEFF{"a":1}', '{"a":1,}', 'nul', '{"a":"\\u12"}', '\u0000', '{"a":NaN}', '[', '"unterminated'];

function bodyOf(document: Json, operation: FuzzOperation, hints: FuzzHints): fc.Arbitrary<{ body?: unknown; text?: string; kind: string }> {
  const schema = operation.bodySchema;
  const hint = (property: string) => hints.body(operation.operationId, property);
  const valid = validValue(document, schema ?? { type: 'object', properties: {} }, 0, hint);
  const properties = Object.keys(resolve(document, schema)?.properties ?? {});
  const required: string[] = resolve(document, schema)?.required ?? [];
  const options: { weight: number; arbitrary: fc.Arbitrary<{ body?: unknown; text?: string; gzip?: boolean; kind: string }> }[] = [
    { weight: 40, arbitrary: valid.map((body) => ({ body, kind: 'valid' })) },
    { weight: 15, arbitrary: fc.constant({ kind: 'none' }) },
    { weight: 10, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((body) => ({ body, kind: 'junk-json' })) },
    { weight: 10, arbitrary: fc.constantFrom(...MALFORMED_JSON).map((text) => ({ text, kind: 'malformed-json' })) },
    { weight: 5, arbitrary: fc.constantFrom<unknown>(null, [], [1, 2], 0, 'text', true, {}).map((body) => ({ body, kind: 'non-object' })) },
    { weight: 4, arbitrary: fc.tuple(valid, fc.constantFrom('id', 'userId', 'privilege', 'siteId', 'status', 'isBetaLifetime', '__proto__', 'x'), junkValue).map(([body, key, value]) => ({ body: { ...(body as Json), [key]: value }, kind: 'extra-property' })) },
  ];
  if (properties.length) {
    options.push({
      weight: 40,
      arbitrary: fc.tuple(valid, fc.constantFrom(...properties)).chain(([body, key]) =>
        brokenValue(document, resolve(document, schema)?.properties[key]).map((value) => ({ body: { ...(body as Json), [key]: value }, kind: `broken:${key}` })),
      ),
    });
  }
  if (required.length) {
    options.push({ weight: 5, arbitrary: fc.tuple(valid, fc.constantFrom(...required)).map(([body, key]) => { const copy = { ...(body as Json) }; delete copy[key]; return { body: copy, kind: `missing:${key}` }; }) });
  }
  // A megabyte body is rare: it proves the size limit without turning the run into a bandwidth test.
  options.push({ weight: 1, arbitrary: fc.constantFrom(900_000, 1_100_000).map((size) => ({ body: { text: 'x'.repeat(size) }, kind: `huge-${size}` })) });
  // Hostile shapes (issue: a few KB of nesting overflowed the stack): nesting just past the limit and
  // far past it, plain and gzip-compressed, a gzip bomb, and numbers JSON allows but no field can hold.
  options.push({ weight: 2, arbitrary: fc.tuple(fc.constantFrom(33, 1_000, 100_000), fc.boolean()).map(([depth, objects]) => ({ text: nestedJson(depth, objects), kind: `deep-${depth}` })) });
  options.push({ weight: 1, arbitrary: fc.constantFrom(100_000, 400_000).map((depth) => ({ text: nestedJson(depth, false), gzip: true, kind: `deep-${depth}-gzip` })) });
  options.push({ weight: 1, arbitrary: fc.constant({ text: `{"a":"${' '.repeat(8 * 1024 * 1024)}"}`, gzip: true, kind: 'gzip-bomb-8MiB' }) });
  const hugeNumberKeys = properties.length ? properties : ['value'];
  options.push({
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...hugeNumberKeys), fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1e-400', '9007199254740993')).map(([key, number]) => ({ text: `{${JSON.stringify(key)}:${number}}`, kind: 'huge-number' })),
  });
  return fc.oneof(...options);
}

const JUNK_PATH_IDS = [
  '0', '-1', '1e3', '0x1A', '2147483648', '99999999999999999999', '1.5', 'abc', '%00', '%E0%A4%A', '..%2F..%2Fetc%2Fpasswd', 'null', 'undefined',
  '00000000-0000-0000-0000-000000000000', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ', '%F0%9F%98%80', encodeURIComponent('שלום'), 'a'.repeat(3000), '%20', '%2e%2e', '*', '1%20OR%201=1',
];

function pathValue(document: Json, operation: FuzzOperation, parameter: Json, hints: FuzzHints): fc.Arbitrary<string> {
  const real = hints.pathIds(operation.operationId, parameter.name);
  const schemaValue = validValue(document, parameter.schema).map((value) => encode(String(value)));
  return fc.oneof(
    ...(real.length ? [{ weight: 5, arbitrary: fc.constantFrom(...real).map(encode) }] : []),
    { weight: 2, arbitrary: schemaValue },
    { weight: 2, arbitrary: fc.constantFrom(...JUNK_PATH_IDS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).filter((s) => s.length > 0).map(encode) },
  );
}

function queryOf(document: Json, operation: FuzzOperation): fc.Arbitrary<string> {
  const parts = operation.queryParams.map((parameter) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<string | null>(null) },
      { weight: 3, arbitrary: validValue(document, parameter.schema).map((value) => (value === null ? null : `${parameter.name}=${encode(String(value))}`)) },
      { weight: 2, arbitrary: brokenValue(document, parameter.schema).map((value) => `${parameter.name}=${encode(typeof value === 'string' ? value : JSON.stringify(value) ?? '')}`) },
      { weight: 1, arbitrary: fc.constant(`${parameter.name}=1&${parameter.name}=2`) },
      { weight: 1, arbitrary: fc.constant(`${parameter.name}[a][b]=1`) },
      { weight: 1, arbitrary: fc.constant(`${parameter.name}=%E0%A4%A`) },
    ),
  );
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | null>(null) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__[admin]=1', 'constructor[prototype][x]=1', 'a=' + 'q'.repeat(4000), 'x[]=1&x[]=2', '%ZZ=1') },
  );
  // Each part stays under 3,000 characters: a request line plus headers over Node's 16 KiB limit is
  // answered by Node's HTTP parser (431, no body) before any application code runs.
  return fc.tuple(fc.tuple(...parts), extra).map(([values, more]) => {
    const all = [...values, more].filter((part): part is string => part !== null).map((part) => part.slice(0, 3000).replace(/%[0-9A-F]?$/i, ''));
    return all.length ? `?${all.join('&')}` : '';
  });
}

function headerValueOf(document: Json, parameter: Json): fc.Arbitrary<string | null> {
  return fc.oneof(
    fc.constant(null),
    validValue(document, parameter.schema).map((value) => (value === null ? null : String(value).replace(/[^\t\x20-\x7e]/g, ''))),
    fc.constantFrom('', 'x'.repeat(300), Buffer.from('ünï😀', 'utf8').toString('latin1'), '\t', 'a,b,c'),
  );
}

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz',
  'application/xml', 'application/merge-patch+json', 'application/json; charset=utf-16', 'application/json; charset=latin1', '',
];

/** Every kind of request the fuzzer sends to one operation, as a fast-check arbitrary. */
export function requestArbitrary(document: Json, operation: FuzzOperation, hints: FuzzHints): fc.Arbitrary<FuzzCase> {
  const pathParts = operation.pathParams.map((parameter) => pathValue(document, operation, parameter, hints).map((value) => [parameter.name as string, value] as const));
  const hasBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(operation.method);
  const body = hasBody
    ? bodyOf(document, operation, hints)
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant<{ body?: unknown; text?: string; kind: string }>({ kind: 'none' }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((b): { body?: unknown; text?: string; kind: string } => ({ body: b, kind: 'body-on-get' })) },
      );
  const auth = fc.oneof(
    { weight: 14, arbitrary: fc.constant<AuthMode>('valid') },
    { weight: 2, arbitrary: fc.constant<AuthMode>('none') },
    { weight: 1, arbitrary: fc.constantFrom<AuthMode>('garbage', 'huge', 'non-ascii', 'alg-none', 'wrong-scheme', 'empty-bearer') },
  );
  const contentType = fc.oneof({ weight: 12, arbitrary: fc.constant(CONTENT_TYPES[0]) }, { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES.slice(1)) });
  const accept = /\/mcp$/.test(operation.path)
    ? fc.oneof({ weight: 8, arbitrary: fc.constant('application/json, text/event-stream') }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/html', '*/*', '') })
    : fc.constantFrom('application/json', '*/*', 'text/html', '');
  const headerParams = fc.tuple(...operation.headerParams.filter((p) => !/^authorization$/i.test(p.name)).map((parameter) => headerValueOf(document, parameter).map((value) => [parameter.name as string, value] as const)));
  const oddHeaders = fc.oneof(
    { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
    { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>({ 'X-Request-Id': 'bad id ' + 'z'.repeat(500) }, { 'X-Forwarded-For': '1.2.3.4, <script>' }, { 'X-API-Key': 'tdk_' + 'A'.repeat(5000) }, { 'X-Admin-API-Key': Buffer.from('ключ', 'utf8').toString('latin1') }, { Origin: 'https://evil.example' }, { 'Content-Encoding': 'gzip' }) },
  );
  return fc
    .record({ pathParts: fc.tuple(...pathParts), query: queryOf(document, operation), body, auth, contentType, accept, headerParams, oddHeaders })
    .map(({ pathParts: values, query, body: generated, auth: mode, contentType: type, accept: acceptValue, headerParams: params, oddHeaders: odd }) => {
      let path = operation.path;
      for (const [name, value] of values) path = path.replace(`{${name}}`, value);
      const headers: Record<string, string> = { ...odd };
      if (acceptValue) headers.Accept = acceptValue;
      for (const [name, value] of params) if (value !== null) headers[name] = value;
      let text: string | undefined;
      if (generated.text !== undefined) text = generated.text;
      else if (generated.kind !== 'none') text = JSON.stringify(generated.body) ?? 'null';
      if (text !== undefined && type) headers['Content-Type'] = type;
      const gzip = (generated as { gzip?: boolean }).gzip === true && text !== undefined;
      if (gzip) headers['Content-Encoding'] = 'gzip';
      return { operationId: operation.operationId, method: operation.method, path: `${path}${query}`, auth: mode, headers, body: gzip ? gzippedOnce(text!) : text, bodyKind: generated.kind };
    });
}

/** The Authorization-style headers for a case whose credentials are not the valid ones. */
export function hostileAuthHeaders(mode: AuthMode, validHeaders: Record<string, string>): Record<string, string> {
  switch (mode) {
    case 'valid':
      return validHeaders;
    case 'none':
      return {};
    case 'garbage':
      return { Authorization: 'Bearer garbage.not.atoken' };
    case 'huge':
      return { Authorization: `Bearer ${'A'.repeat(8000)}` };
    case 'non-ascii':
      return { Authorization: `Bearer ${Buffer.from('tökén😀', 'utf8').toString('latin1')}` };
    case 'alg-none':
      return { Authorization: `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"x","typ":"access"}').toString('base64url')}.` };
    case 'wrong-scheme':
      return { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` };
    case 'empty-bearer':
      return { Authorization: 'Bearer ' };
  }
}

/** `{"a": [[…]]}` or `{"a": {"a": …}}`, `depth` levels inside the outer object. */
function nestedJson(depth: number, objects: boolean): string {
  return objects ? `{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}` : `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

const gzipCache = new Map<string, Buffer>();
/** The same few large texts come back often; compress each once. */
function gzippedOnce(text: string): Buffer {
  let bytes = gzipCache.get(text);
  if (!bytes) gzipCache.set(text, (bytes = gzipSync(text, { level: 9 })));
  return bytes;
}
