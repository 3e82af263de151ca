import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** Who is calling, as established by the route's auth scheme guard. */
export type Principal =
  | { kind: 'user'; userId: string; sessionId: string }
  | { kind: 'api-key'; userId: string; apiKeyId: string }
  | { kind: 'admin' }
  | { kind: 'site'; siteId: string; ownerId: string; scope: 'read' | 'write'; tokenId: string }
  | { kind: 'portfolio'; ownerId: string; tokenId: string }
  /** An OAuth access token an agent got through the authorization server, for one resource (its audience). */
  | { kind: 'oauth'; userId: string; clientId: string; grantId: string; scopes: string[] };

export type PrincipalOf<K extends Principal['kind']> = Extract<Principal, { kind: K }>;

export function setPrincipal(request: unknown, principal: Principal): void {
  (request as { principal?: Principal }).principal = principal;
}

export function getPrincipal(request: unknown): Principal | undefined {
  return (request as { principal?: Principal }).principal;
}

/** Injects the authenticated principal into a handler parameter. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext) => getPrincipal(ctx.switchToHttp().getRequest()));

/** Injects the id of the user acting (JWT or API key). */
export const CurrentUserId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const principal = getPrincipal(ctx.switchToHttp().getRequest());
  if (principal?.kind === 'user' || principal?.kind === 'api-key') return principal.userId;
  return undefined;
});
