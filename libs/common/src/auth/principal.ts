import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/**
 * The kinds of caller, by kind. The account kinds every app shares are declared here; an app
 * adds its own by augmenting this interface (`declare module '#libs/common'`), as feedback-export
 * does for its export tokens. A kind with a `tokenId` is a token credential: rate limits count
 * it per token (`<kind>-token:<tokenId>`).
 */
export interface PrincipalKinds {
  user: { userId: string; sessionId: string };
  'api-key': { userId: string; apiKeyId: string };
  admin: Record<never, never>;
  /** An OAuth access token an agent got through the authorization server, for one resource (its audience). */
  oauth: { userId: string; clientId: string; grantId: string; scopes: string[] };
}

/** Who is calling, as established by the route's auth scheme guard. */
export type Principal = { [K in keyof PrincipalKinds]: { kind: K } & PrincipalKinds[K] }[keyof PrincipalKinds];

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
