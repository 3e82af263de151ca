import type { FeedbackTokenKind } from './feedback-token.format.js';

/**
 * Whose export budget (EXPORT_TOKEN_RATE_LIMIT) a token spends: a site token the budget of its
 * site and kind (`<siteId>:read`, `<siteId>:write`), the portfolio token its account's. Never the
 * token's id: rotating a token must not start a fresh budget. Counted `<principal kind>-token:<budget>`.
 */
export function exportTokenBudgetOf(token: { kind: FeedbackTokenKind; siteId: string | null; ownerId: string }): string {
  return token.kind === 'portfolio' ? token.ownerId : `${token.siteId}:${token.kind}`;
}

/** exportTokenBudgetOf as an SQL expression over a token row's kind, site id and owner id expressions. */
export function exportTokenBudgetSql(columns: { kind: string; siteId: string; ownerId: string }): string {
  return `(CASE WHEN ${columns.kind} = 'portfolio' THEN (${columns.ownerId})::text ELSE (${columns.siteId})::text || ':' || ${columns.kind} END)`;
}
