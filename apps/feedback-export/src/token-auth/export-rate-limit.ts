import type { RateLimitOptions } from '#libs/common';

/**
 * One budget per site and token kind (sk_, wk_; the portfolio token ok_: per account), kept across
 * rotations (exportTokenBudgetOf), shared by every token route — feedback export,
 * triage, question batches and MCP: 60 requests per minute, counted in the shared store so it
 * holds across replicas. Fails open: pollers keep working while Redis is down.
 * Use as `@RateLimit(EXPORT_TOKEN_RATE_LIMIT)`.
 */
export const EXPORT_TOKEN_RATE_LIMIT: RateLimitOptions = { bucket: 'feedback-export-token', limit: 60, windowSeconds: 60, storeOutage: 'fail-open' };
