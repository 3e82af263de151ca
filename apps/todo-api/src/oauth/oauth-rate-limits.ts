import type { RateLimitOptions } from '#libs/common';

/** Client registrations per client address and hour: enough for every agent a person connects, not for filling the table. */
export const OAUTH_REGISTRATION_RATE_LIMIT: RateLimitOptions = { bucket: 'oauth-register', limit: 20, windowSeconds: 3600, storeOutage: 'fail-closed' };
