import type { RateLimitOptions } from '#libs/common';

/** Client registrations per client address and hour: enough for every agent a person connects, not for filling the table. */
export const OAUTH_REGISTRATION_RATE_LIMIT: RateLimitOptions = { bucket: 'oauth-register', limit: 20, windowSeconds: 3600, storeOutage: 'fail-closed' };

/**
 * Every other request to the authorization server (authorize, its resume, token, revoke, jwks, the
 * sign-in page) per client address and minute, one budget for all: a sign-in takes about six, an
 * agent refreshes hourly; a loop that stores interactions or fetches metadata documents stops here.
 */
export const OAUTH_ENDPOINTS_RATE_LIMIT: RateLimitOptions = { bucket: 'oauth', limit: 120, windowSeconds: 60, storeOutage: 'fail-closed' };
