import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { validationException, type FieldError } from './validation.js';

/** Largest body accepted, on the wire and after inflating `Content-Encoding: gzip|deflate|br` (decisions.md: 413 beyond 1 MiB). */
const BODY_LIMIT = '1mb';

/** Deepest nesting of objects and arrays a JSON body may have; real requests stay under 10. */
export const MAX_JSON_DEPTH = 32;

/** Keys that would reach an object's prototype machinery once copied into a DTO: refused like any unknown property. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const JSON_TYPES = ['application/json', 'application/*+json'];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** An error body-parser passes on with its `type` (see resolveBodyParserError). */
function bodyError(type: string, status: number, message: string): Error {
  return Object.assign(new Error(message), { type, status, expose: true });
}

/**
 * Whether UTF-8 JSON text nests objects/arrays deeper than `maxDepth`, judged on the raw bytes
 * before JSON.parse builds anything: one pass, no allocation (about 2.5 ms per MiB). A
 * reviver would run only after the whole tree exists, costs ten times more on a large flat
 * array, and itself overflows the stack on a deep one. Bytes of multi-byte UTF-8 characters
 * are all >= 0x80, so brackets and quotes inside strings cannot be mistaken. Malformed text
 * is left to JSON.parse.
 */
export function nestsDeeperThan(utf8: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < utf8.length; i++) {
    const byte = utf8[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * The forbidden keys in a parsed body, with their paths. The body is at most MAX_JSON_DEPTH
 * deep (checked before parsing), so the recursion is bounded.
 */
export function forbiddenKeysIn(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const found: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === 'object' && item !== null) found.push(...forbiddenKeysIn(item, `${path}${path ? '.' : ''}${i}`));
    }
    return found;
  }
  for (const key of Object.keys(value)) {
    const keyPath = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) found.push(keyPath);
    const inner = (value as Record<string, unknown>)[key];
    if (typeof inner === 'object' && inner !== null) found.push(...forbiddenKeysIn(inner, keyPath));
  }
  return found;
}

/**
 * Express's JSON parser with the limits every route of both services shares: 1 MiB after
 * inflating (body-parser applies `limit` to the decompressed bytes, so a gzip bomb stops at
 * 1 MiB), nesting at most MAX_JSON_DEPTH (refused before parsing). `keepRawBody` keeps the
 * exact bytes of the paths that verify a signature.
 */
export function jsonBodyParser(keepRawBody: (request: Request) => boolean): ReturnType<typeof express.json> {
  return express.json({
    limit: BODY_LIMIT,
    inflate: true,
    type: JSON_TYPES,
    verify: (request: Request, _response, buffer, encoding) => {
      // body-parser decodes only utf-* charsets; anything but UTF-8 is re-encoded for the byte scan.
      const utf8 = /^utf-?8$/i.test(encoding) ? buffer : Buffer.from(buffer.toString(encoding as BufferEncoding), 'utf8');
      if (nestsDeeperThan(utf8, MAX_JSON_DEPTH)) {
        throw bodyError('entity.too.deep', 400, `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      if (keepRawBody(request)) (request as Request & { rawBody?: Buffer }).rawBody = buffer;
    },
  });
}

/**
 * After parsing: a JSON body must be an object (arrays and primitives are refused before
 * validation), and may not carry `__proto__`, `constructor` or `prototype` keys at any level
 * (class-transformer would assign them onto the DTO, past the unknown-property check).
 * Paths that keep their raw body (signed webhooks) are checked by their signature instead.
 */
export function checkJsonBody(keepRawBody: (request: Request) => boolean) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const body = request.body as unknown;
    if (request.is(JSON_TYPES) && (Array.isArray(body) || body === null || typeof body !== 'object')) {
      return next(new AppException(ErrorCode.VALIDATION_ERROR, 'The request body must be a JSON object'));
    }
    if (typeof body !== 'object' || body === null || keepRawBody(request)) return next();
    const forbidden = forbiddenKeysIn(body);
    if (forbidden.length > 0) {
      const fields: FieldError[] = forbidden.map((field) => ({ field, messages: [`property ${field.split('.').pop()} should not exist`] }));
      return next(validationException(fields));
    }
    next();
  };
}
