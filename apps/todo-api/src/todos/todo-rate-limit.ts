import type { RateLimitOptions } from '#libs/common';

/**
 * 600 requests per minute per API key, one counter for the todo routes and the MCP endpoint.
 * Fails open: while Redis is down, paying clients keep working unlimited.
 */
export const TODO_RATE_LIMIT: RateLimitOptions = { bucket: 'todos', limit: 600, windowSeconds: 60, storeOutage: 'fail-open' };
