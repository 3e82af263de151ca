import type * as OidcProviderPackage from 'oidc-provider';

let loaded: typeof OidcProviderPackage | undefined;

/**
 * oidc-provider (with Koa and its middleware), loaded when a replica builds its authorization server
 * (OAuthProvider, on the first request that needs it), not when the identity wing is imported:
 * feedback-export imports the wing for accounts and never builds one.
 * The only value import of the package; test/operations/tracing-off holds that feedback-export never loads it.
 */
export async function loadOidcProvider(): Promise<typeof OidcProviderPackage> {
  loaded ??= await import('oidc-provider');
  return loaded;
}

/** oidc-provider's error classes, for code that runs inside the authorization server (so after loadOidcProvider). */
export function oidcErrors(): typeof OidcProviderPackage.errors {
  if (!loaded) throw new Error('oidc-provider is not loaded: the OAuth server has not been built');
  return loaded.errors;
}
