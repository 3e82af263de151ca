/** What the security activity log records, one value of `type` per event (the published list; add, never rename). */
export const SECURITY_ACTIVITY_TYPES = [
  'sign_in',
  'sign_in_failed',
  'password_changed',
  'password_reset',
  'session_revoked',
  'api_key_created',
  'api_key_rotated',
  'api_key_revoked',
  'oauth_app_connected',
  'oauth_app_disconnected',
  'beta_granted',
  'beta_revoked',
  'subscription_changed',
  'email_verified',
  'email_change_requested',
  'email_changed',
  'email_reverted',
  'mfa_enabled',
  'mfa_disabled',
  'mfa_challenge_failed',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'passkey_added',
  'passkey_removed',
  'passkey_used',
] as const;

export type SecurityActivityType = (typeof SECURITY_ACTIVITY_TYPES)[number];

/** How the log is bounded (SecurityActivitySweeper): entries older than this go, and beyond this many per account the oldest go. */
export const SECURITY_ACTIVITY_RETENTION = { days: 90, perAccount: 1000, sweepIntervalMs: 15 * 60_000, batchSize: 1000 } as const;

/** Page sizes of GET /api/v1/account/activity. */
export const SECURITY_ACTIVITY_PAGE = { defaultLimit: 50, maxLimit: 100 } as const;
