import type { AppSecurity } from '#libs/common';

declare module '#libs/common' {
  /** The administrator key's scheme (AdminKeyGuard): the billing administration routes. */
  interface AuthSchemes {
    'admin-key': true;
  }

  /** The operator, with the administrator key: no account of its own. */
  interface PrincipalKinds {
    admin: Record<never, never>;
  }
}

/** The header the administrator key comes in; never logged. */
export const ADMIN_KEY_HEADER = 'x-admin-api-key';

/** How the administrator key's scheme appears in the OpenAPI document. */
export const ADMIN_KEY_SECURITY: AppSecurity = {
  schemes: {
    adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-API-Key', description: 'Administrator key (ADMIN_API_KEY)' },
  },
  requirements: {
    'admin-key': [{ adminKey: [] }],
  },
};
