import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/**
 * The kinds of caller, by kind. The account kinds every app shares are declared here; an app
 * adds its own by augmenting this interface (`declare module '#libs/common'`), as both apps do for
 * their own credentials. What the shared machinery needs to know of an app's kind, the kind says
 * with the fields below (ActsAsAccountUser, OwnCredential, a `tokenBudget`), never by its name.
 */
export interface PrincipalKinds {
  user: { userId: string; sessionId: string };
  /** An OAuth access token an agent got through the authorization server, for one resource (its audience). */
  oauth: { userId: string; clientId: string; grantId: string; scopes: string[] };
}

/**
 * An app's kind that acts as its account's user, with the user's own rights (an API key):
 * CurrentUserId gives its userId. An OAuth grant, held to its scopes, is not one.
 */
export interface ActsAsAccountUser {
  userId: string;
  actsAsAccountUser: true;
}

/**
 * An app's kind that is a credential with a rate-limit budget of its own (an API key): counted
 * per credential, `<kind>:<credentialId>` (credentialTrackerOf). A kind with a `tokenBudget` instead
 * is a token credential, counted `<kind>-token:<tokenBudget>` (tokenTrackerOf): the app names the
 * budget so that it outlives the token (rotating a token must not start a fresh budget).
 */
export interface OwnCredential {
  credentialId: string;
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

/** The id of the user acting with the user's own rights: a session's, or an app's kind that ActsAsAccountUser; else undefined. */
function actingUserIdOf(principal: Principal | undefined): string | undefined {
  if (principal?.kind === 'user') return principal.userId;
  const acting = principal as Partial<ActsAsAccountUser> | undefined;
  return acting?.actsAsAccountUser === true ? acting.userId : undefined;
}

/** Injects the id of the user acting (a session, or an app's kind that ActsAsAccountUser such as an API key). */
export const CurrentUserId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => actingUserIdOf(getPrincipal(ctx.switchToHttp().getRequest())));
