import type { AppSecurity } from '#libs/common';

declare module '#libs/common' {
  interface AuthSchemes {
    /** The todo MCP endpoint: an API key, or an OAuth access token issued for that resource (todos:read / todos:write). */
    'todo-mcp': true;
  }
}

/** How the todo MCP endpoint's scheme appears in the OpenAPI document. */
export const TODO_MCP_SECURITY: AppSecurity = {
  schemes: {
    mcpOAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'OAuth 2.1 access token (ES256 JWT) issued by the todo service’s authorization server for this MCP endpoint only (its `aud`); ' +
        'discovered from the 401’s `WWW-Authenticate: Bearer resource_metadata=…` (see README “Connecting an agent”)',
    },
  },
  requirements: {
    'todo-mcp': [{ apiKey: [] }, { apiKeyHeader: [] }, { mcpOAuth: [] }],
  },
};
