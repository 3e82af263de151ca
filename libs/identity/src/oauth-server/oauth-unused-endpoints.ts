import type { Configuration } from 'oidc-provider';

/**
 * oidc-provider features on by default whose endpoints this server neither routes nor needs (MCP
 * clients use the authorization code flow; signing out is the app's own): switched off so the
 * metadata advertises no endpoint that answers 404 (pushed authorization requests at /request,
 * RP-initiated logout at /oauth/logout).
 */
export const UNUSED_ENDPOINTS_OFF = {
  pushedAuthorizationRequests: { enabled: false },
  rpInitiatedLogout: { enabled: false },
} satisfies Configuration['features'];
