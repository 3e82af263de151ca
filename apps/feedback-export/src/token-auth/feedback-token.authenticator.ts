import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppException, bearerTokenOf, ErrorCode, rateLimitOptionsFor, setPrincipal, type PrincipalOf, type RateLimitCounting } from '#libs/common';
import { exportTokenBudgetOf } from './export-token-budget.js';
import { hashFeedbackToken, isWellFormedFeedbackToken, type FeedbackTokenKind } from './feedback-token.format.js';
import { TokenAuthRepository } from './token-auth.repository.js';

declare module '#libs/common' {
  /** feedback-export's callers: a site token (read or write scope) and the account portfolio token. */
  interface PrincipalKinds {
    /** tokenBudget: the export budget the token spends (exportTokenBudgetOf), kept across rotations. */
    site: { siteId: string; ownerId: string; scope: 'read' | 'write'; tokenBudget: string };
    portfolio: { ownerId: string; tokenBudget: string };
  }
}

export type SitePrincipal = PrincipalOf<'site'>;
export type PortfolioPrincipal = PrincipalOf<'portfolio'>;
export type FeedbackTokenPrincipal = SitePrincipal | PortfolioPrincipal;

const WRONG_KIND_MESSAGE: Record<string, string> = {
  write: 'This route needs the site write token (wk_)',
  read: 'This route needs a site token (sk_ or wk_)',
  portfolio: 'This route needs the account portfolio token (ok_)',
};

/**
 * Checks an export token against its stored SHA-256 and turns it into a principal.
 * Missing, malformed, unknown, rotated, or of a kind the route does not take: 401 INVALID_TOKEN.
 */
@Injectable()
export class FeedbackTokenAuthenticator {
  constructor(
    private readonly tokens: TokenAuthRepository,
    private readonly reflector: Reflector,
  ) {}

  /**
   * A guard's whole job: the request's bearer token against the kinds the route takes. The
   * lookup also counts the request against the route's rate limit (one statement for both).
   */
  async authenticateRequest(context: ExecutionContext, accepted: readonly FeedbackTokenKind[]): Promise<true> {
    const request = context.switchToHttp().getRequest<Request>();
    setPrincipal(request, await this.authenticate(bearerTokenOf(request), accepted, { request, limit: rateLimitOptionsFor(this.reflector, context) }));
    return true;
  }

  async authenticate(
    token: string | undefined,
    accepted: readonly FeedbackTokenKind[],
    counting?: RateLimitCounting,
  ): Promise<FeedbackTokenPrincipal> {
    const wanted = accepted.includes('read') ? 'read' : accepted.includes('write') ? 'write' : 'portfolio';
    if (!token) throw new AppException(ErrorCode.INVALID_TOKEN, `A token is required (Authorization: Bearer <token>). ${WRONG_KIND_MESSAGE[wanted]}`);
    const hash = isWellFormedFeedbackToken(token) ? hashFeedbackToken(token) : undefined;
    const row = hash ? await this.tokens.findTokenByHash(hash, accepted, counting) : undefined;
    if (!row) throw new AppException(ErrorCode.INVALID_TOKEN, 'The token is invalid or has been rotated');
    if (!accepted.includes(row.kind)) throw new AppException(ErrorCode.INVALID_TOKEN, WRONG_KIND_MESSAGE[wanted]);
    if (row.kind === 'portfolio') return { kind: 'portfolio', ownerId: row.ownerId, tokenBudget: exportTokenBudgetOf(row) };
    return { kind: 'site', siteId: row.siteId!, ownerId: row.ownerId, scope: row.kind, tokenBudget: exportTokenBudgetOf(row) };
  }
}
