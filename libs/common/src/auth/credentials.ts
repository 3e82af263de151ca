import type { Request } from 'express';

/** The token of `Authorization: Bearer <token>` (RFC 6750: the scheme in any case), if the request has one. */
export function bearerTokenOf(request: Request): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/**
 * The credential a request presents: the app's own key header when it names one and the request
 * sends it (trimmed), else the bearer token. Every guard reads its credential here.
 */
export function presentedCredential(request: Request, keyHeader?: string): string | undefined {
  const header = keyHeader === undefined ? undefined : request.headers[keyHeader.toLowerCase()];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  return bearerTokenOf(request);
}

/** A JWT (three base64url parts, a JSON header): an access token rather than an opaque key. */
export function looksLikeJwt(credential: string): boolean {
  return /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/.test(credential);
}
