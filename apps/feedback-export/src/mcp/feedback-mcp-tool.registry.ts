import { Injectable } from '@nestjs/common';
import { ErrorCode } from '#libs/common';
import { McpToolRegistry } from '#libs/mcp';
import type { FeedbackTokenPrincipal } from '../token-auth/feedback-token.authenticator.js';

/** The feedback MCP scopes, as REST: a site's read and write, and the account's portfolio read. */
export type FeedbackMcpScope = 'read' | 'write' | 'portfolio';

/** The scopes a token holds: sk_ reads its site, wk_ also writes it, ok_ reads the portfolio. */
export function feedbackMcpScopesOf(principal: FeedbackTokenPrincipal): readonly FeedbackMcpScope[] {
  if (principal.kind === 'portfolio') return ['portfolio'];
  return principal.scope === 'write' ? ['read', 'write'] : ['read'];
}

const CREDENTIALS: Record<FeedbackMcpScope, string> = { read: 'an sk_ or wk_ token', write: 'a wk_ token', portfolio: 'an ok_ token' };

/**
 * The tools of the feedback MCP endpoint. Feature modules register theirs in onModuleInit
 * (feedback/feedback-mcp.tools.ts, questions/questions-mcp.tools.ts). A token of the wrong
 * kind gets INVALID_TOKEN, as on REST.
 */
@Injectable()
export class FeedbackMcpToolRegistry extends McpToolRegistry<FeedbackTokenPrincipal, FeedbackMcpScope> {
  constructor() {
    super({ scopesOf: feedbackMcpScopesOf, refusalCode: ErrorCode.INVALID_TOKEN, credentialFor: (scope) => CREDENTIALS[scope] });
  }
}
