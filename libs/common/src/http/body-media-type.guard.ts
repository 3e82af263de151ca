import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';

const BODY_MEDIA_TYPES = 'body-media-types';

/** What a route takes unless it says otherwise (@AcceptsBody): JSON. */
export const JSON_MEDIA_TYPES: readonly string[] = ['application/json', 'application/*+json'];

/** Declared by a route whose handler (or the library it hands the request to) checks the body's type itself. */
export const ANY_MEDIA_TYPE = '*/*';

/** The methods whose body is read; a body on any other method is ignored, as before. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The request body types a route (method or controller) takes, instead of JSON: the one-click
 * unsubscribe takes form bodies, the OAuth sign-in form too. `ANY_MEDIA_TYPE` leaves the check to
 * the handler (oidc-provider's endpoints, the MCP endpoint, which answers its own JSON-RPC 415).
 * Anything else declared is also the operation's `consumes` in the OpenAPI document.
 */
export function AcceptsBody(...mediaTypes: [string, ...string[]]): MethodDecorator & ClassDecorator {
  const documented = mediaTypes.filter((type) => type !== ANY_MEDIA_TYPE);
  return applyDecorators(SetMetadata(BODY_MEDIA_TYPES, mediaTypes), ...(documented.length > 0 ? [ApiConsumes(...documented)] : []));
}

/** The types a route takes, read from its decorators (method first, then controller); JSON by default. */
export function bodyMediaTypesOf(handler: object, controller: object): readonly string[] {
  return (Reflect.getMetadata(BODY_MEDIA_TYPES, handler) as string[] | undefined) ?? (Reflect.getMetadata(BODY_MEDIA_TYPES, controller) as string[] | undefined) ?? JSON_MEDIA_TYPES;
}

/** Whether a route answers 415 UNSUPPORTED_MEDIA_TYPE for a body of another type (the OpenAPI document says so). */
export function refusesOtherBodies(method: string, mediaTypes: readonly string[]): boolean {
  return BODY_METHODS.has(method.toUpperCase()) && !mediaTypes.includes(ANY_MEDIA_TYPE);
}

/** A body is on the wire: some bytes announced, or chunked. A request with no body (or `Content-Length: 0`) is never refused. */
function carriesBody(request: Request): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

/**
 * 415 UNSUPPORTED_MEDIA_TYPE when a request sends a body of a type its route does not take
 * (a form-encoded or text/plain body on a JSON route would otherwise reach validation unread and
 * come back as 400 "text is required"). Global, ahead of the auth guard: the route's declared
 * types (@AcceptsBody, default JSON) decide, from the route's own metadata.
 */
@Injectable()
export class BodyMediaTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const accepted = bodyMediaTypesOf(context.getHandler(), context.getClass());
    if (!refusesOtherBodies(request.method, accepted) || !carriesBody(request)) return true;
    if (request.is([...accepted])) return true;
    const sent = request.headers['content-type'];
    throw new AppException(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      `This route takes a ${accepted.filter((type) => type !== 'application/*+json').join(' or ')} body; ${sent ? `got ${sent.split(';')[0].trim()}` : 'the body has no Content-Type'}`,
    );
  }
}
