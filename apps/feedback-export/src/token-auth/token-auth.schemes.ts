import type { AppSecurity } from '#libs/common';

declare module '#libs/common' {
  /** feedback-export's export-token schemes (guards in site-token.guard.ts and portfolio-token.guard.ts). */
  interface AuthSchemes {
    'site-read': true;
    'site-write': true;
    portfolio: true;
    /** Any export token (sk_, wk_ or ok_): the MCP endpoint, whose tools check their own scope. */
    'feedback-token': true;
    /** The feedback MCP endpoint: a feedback export token, or an OAuth access token issued for that resource. */
    'feedback-mcp': true;
    /** A site's webhook routes: the site write token (wk_) or the owner's access token. */
    'site-write-or-jwt': true;
  }
}

/** How the export-token schemes appear in the OpenAPI document. */
export const TOKEN_AUTH_SECURITY: AppSecurity = {
  schemes: {
    siteToken: { type: 'http', scheme: 'bearer', description: 'Site token (opaque): `sk_…` (read) or `wk_…` (read and write)' },
    siteWriteToken: { type: 'http', scheme: 'bearer', description: 'Site write token (opaque): `wk_…` only; a read token is 401 INVALID_TOKEN' },
    portfolioToken: { type: 'http', scheme: 'bearer', description: 'Account portfolio token (opaque): `ok_…`, read-only, across every site of the account' },
    mcpOAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'OAuth 2.1 access token (ES256 JWT) issued by the todo service’s authorization server for this MCP endpoint only (its `aud`): ' +
        '`feedback:read` / `feedback:write` on the sites the user ticked (its `authorization_details`, one per site), `portfolio:read`; ' +
        'discovered from the 401’s `WWW-Authenticate: Bearer resource_metadata=…` (see README “Connecting an agent”)',
    },
  },
  requirements: {
    'site-read': [{ siteToken: [] }],
    'site-write': [{ siteWriteToken: [] }],
    portfolio: [{ portfolioToken: [] }],
    'feedback-token': [{ siteToken: [] }, { portfolioToken: [] }],
    'feedback-mcp': [{ siteToken: [] }, { portfolioToken: [] }, { mcpOAuth: [] }],
    'site-write-or-jwt': [{ siteWriteToken: [] }, { jwt: [] }],
  },
};
