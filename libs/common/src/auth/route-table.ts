import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { bodyMediaTypesOf } from '../http/body-media-type.guard.js';
import { needsDatabase } from '../http/without-database.js';
import { isRawResponse } from '../http/envelope.js';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from '../rate-limit/rate-limit.constants.js';
import { AUTH_SCHEME, AuthScheme } from './auth-scheme.decorator.js';
import { trimSlashes } from '../http/url-path.js';

export interface RouteEntry {
  method: string;
  path: string;
  scheme: AuthScheme | 'NONE';
  handler: string;
  /** The route's @RateLimit, if any (method first, then controller). */
  rateLimit?: RateLimitOptions;
  /** Marked @RawResponse: the route writes its own body, without the success envelope. */
  rawResponse: boolean;
  /** The request body types the route takes (@AcceptsBody; JSON when undeclared). listRoutes always sets it. */
  bodyMediaTypes?: readonly string[];
  /** The route needs the database (every route unless @WithoutDatabase). listRoutes always sets it. */
  database?: boolean;
}

function joinPath(...parts: string[]): string {
  const joined = parts
    .map(trimSlashes)
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

/** A controller's method names, its own and those it inherits (a shared controller an app extends, as Nest routes them), each once. */
function handlerNames(prototype: object): string[] {
  const names = new Set<string>();
  for (let proto = prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  }
  return [...names];
}

/** Every route of the app with the auth scheme it declares, read from the decorators. */
export function listRoutes(app: INestApplication): RouteEntry[] {
  const routes: RouteEntry[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: any[]) => unknown) | undefined;
      if (!controller) continue;
      const base = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '')[0] ?? '';
      const classScheme = Reflect.getMetadata(AUTH_SCHEME, controller) as AuthScheme | undefined;
      const classLimit = Reflect.getMetadata(RATE_LIMIT_OPTIONS, controller) as RateLimitOptions | undefined;
      for (const name of handlerNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const subPaths = Reflect.getMetadata(PATH_METADATA, handler);
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (subPaths === undefined || method === undefined) continue;
        const scheme = (Reflect.getMetadata(AUTH_SCHEME, handler) as AuthScheme | undefined) ?? classScheme ?? 'NONE';
        const rateLimit = (Reflect.getMetadata(RATE_LIMIT_OPTIONS, handler) as RateLimitOptions | undefined) ?? classLimit;
        for (const sub of ([] as string[]).concat(subPaths)) {
          routes.push({ method: RequestMethod[method], path: joinPath(base, sub), scheme, handler: `${controller.name}.${name}`, rateLimit, rawResponse: isRawResponse(handler, controller), bodyMediaTypes: bodyMediaTypesOf(handler, controller), database: needsDatabase(handler, controller) });
        }
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/** Refuses to start an app that has a route without an auth scheme. */
export function assertEveryRouteHasScheme(routes: readonly RouteEntry[]): void {
  const missing = routes.filter((route) => route.scheme === 'NONE');
  if (missing.length > 0) {
    throw new Error(`Routes without an auth scheme (add @UseAuth or @Public): ${missing.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  }
}

/**
 * The paths whose routes write their own body (@RawResponse). The envelope is chosen by the
 * path Express matched, so a path's routes must agree: a raw GET beside an enveloped POST
 * on one path refuses to start.
 */
export function rawResponsePaths(routes: readonly RouteEntry[]): Set<string> {
  const raw = new Set(routes.filter((route) => route.rawResponse).map((route) => route.path));
  const mixed = routes.filter((route) => !route.rawResponse && raw.has(route.path));
  if (mixed.length > 0) {
    throw new Error(`Paths with both @RawResponse and enveloped routes (mark all or none of a path's routes): ${mixed.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  }
  return raw;
}
