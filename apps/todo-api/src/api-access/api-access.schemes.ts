import { credentialTrackerOf, credentialTrackerSql, type ActsAsAccountUser, type AppSecurity, type OwnCredential, type PrincipalOf } from '#libs/common';

declare module '#libs/common' {
  /** todo-api's API-key schemes (guards in api-key-auth.guard.ts and jwt-or-api-key.guard.ts). */
  interface AuthSchemes {
    'api-key': true;
    /** The realtime stream: an API key or an access token, in a header or the `access_token` query parameter. */
    'jwt-or-api-key': true;
  }

  /** An API key acts as its account's user and has a rate-limit budget of its own (`api-key:<id>`); its credentialId is the key's id. */
  interface PrincipalKinds {
    'api-key': ActsAsAccountUser & OwnCredential;
  }
}

/** The header an API key may come in, instead of the bearer form; never logged. */
export const API_KEY_HEADER = 'x-api-key';

export function apiKeyPrincipal(userId: string, apiKeyId: string): PrincipalOf<'api-key'> {
  return { kind: 'api-key', userId, actsAsAccountUser: true, credentialId: apiKeyId };
}

/** The rate-limit tracker of an API key (what RateLimitGuard counts an API-key principal as). */
export function apiKeyTracker(apiKeyId: string): string {
  return credentialTrackerOf('api-key', apiKeyId);
}

/** apiKeyTracker as an SQL expression over `apiKeyIdSql` (the counting lookup's). */
export function apiKeyTrackerSql(apiKeyIdSql: string): string {
  return credentialTrackerSql(`'api-key'`, apiKeyIdSql);
}

/** How the API-key schemes appear in the OpenAPI document (`jwt` is the shared access token's). */
export const API_ACCESS_SECURITY: AppSecurity = {
  schemes: {
    apiKey: { type: 'http', scheme: 'bearer', description: 'API key (`tdk_…`, opaque) as a bearer token' },
    apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key (`tdk_…`, opaque) in its own header, instead of the bearer form' },
  },
  requirements: {
    'api-key': [{ apiKey: [] }, { apiKeyHeader: [] }],
    'jwt-or-api-key': [{ jwt: [] }, { apiKey: [] }, { apiKeyHeader: [] }],
  },
};
