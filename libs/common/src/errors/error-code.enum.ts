/**
 * The one catalogue of error codes both services answer with.
 * The HTTP status of each code lives in ERROR_CATALOGUE below; adding a code without
 * a status fails to compile, so the map stays exhaustive.
 */
export enum ErrorCode {
  VALIDATION_ERROR = 'VALIDATION_ERROR',
  BOT_CHALLENGE_FAILED = 'BOT_CHALLENGE_FAILED',
  INVALID_RESET_CODE = 'INVALID_RESET_CODE',
  /** A new password found in a known data breach (the breached-password range check). */
  PASSWORD_BREACHED = 'PASSWORD_BREACHED',
  /** A reset-password token that is missing, unknown or expired: published as INVALID_TOKEN with 400. */
  INVALID_RESET_TOKEN = 'INVALID_RESET_TOKEN',
  /** An e-mail verification, change or revert code that is unknown, expired or used: published as INVALID_TOKEN with 400. */
  INVALID_EMAIL_TOKEN = 'INVALID_EMAIL_TOKEN',
  INVALID_SIGNATURE = 'INVALID_SIGNATURE',
  CURSOR_MISMATCH = 'CURSOR_MISMATCH',
  AUTH_REQUIRED = 'AUTH_REQUIRED',
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  INVALID_TOKEN = 'INVALID_TOKEN',
  /** Login of an account with a second factor: the password was right, now POST /api/v1/auth/mfa/verify with error.details.challengeToken. */
  MFA_REQUIRED = 'MFA_REQUIRED',
  /** A password change or deletion of an account with a second factor came without `code` (a current TOTP or recovery code); no challenge: send it again with one. */
  MFA_CODE_REQUIRED = 'MFA_CODE_REQUIRED',
  ADMIN_AUTH_REQUIRED = 'ADMIN_AUTH_REQUIRED',
  API_KEY_REQUIRED = 'API_KEY_REQUIRED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  SUBSCRIPTION_REQUIRED = 'SUBSCRIPTION_REQUIRED',
  FORBIDDEN = 'FORBIDDEN',
  /** The account's e-mail address is not confirmed yet (needed only by what confirmation gates: a change of address, enrolling a second factor). */
  EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED',
  /** An account quota (sites per account, batches or stored bytes per site) would be exceeded. */
  QUOTA_EXCEEDED = 'QUOTA_EXCEEDED',
  NOT_FOUND = 'NOT_FOUND',
  USER_NOT_FOUND = 'USER_NOT_FOUND',
  CUSTOMER_NOT_FOUND = 'CUSTOMER_NOT_FOUND',
  SUBSCRIPTION_NOT_FOUND = 'SUBSCRIPTION_NOT_FOUND',
  BETA_ACCESS_NOT_FOUND = 'BETA_ACCESS_NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  NOT_ACCEPTABLE = 'NOT_ACCEPTABLE',
  CONFLICT = 'CONFLICT',
  EMAIL_TAKEN = 'EMAIL_TAKEN',
  USERNAME_TAKEN = 'USERNAME_TAKEN',
  BETA_LIFETIME_ACCESS = 'BETA_LIFETIME_ACCESS',
  SUBSCRIPTION_NOT_REACTIVATABLE = 'SUBSCRIPTION_NOT_REACTIVATABLE',
  SUBSCRIPTION_ALREADY_ACTIVE = 'SUBSCRIPTION_ALREADY_ACTIVE',
  BATCH_NOT_SENT = 'BATCH_NOT_SENT',
  /** A question batch that is no longer a draft: it cannot be edited, deleted or sent again. */
  BATCH_ALREADY_SENT = 'BATCH_ALREADY_SENT',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  /** A widget reporter token that is not signed with the site's current identity secret, has expired, or is malformed. */
  IDENTITY_TOKEN_INVALID = 'IDENTITY_TOKEN_INVALID',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED = 'RATE_LIMITED',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  PAYMENT_PROVIDER_ERROR = 'PAYMENT_PROVIDER_ERROR',
  BILLING_UNAVAILABLE = 'BILLING_UNAVAILABLE',
  SERVICE_DEGRADED = 'SERVICE_DEGRADED',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  /** The replica is past its capacity (event-loop delay or requests in flight): refused before any work, retry shortly. */
  SERVICE_OVERLOADED = 'SERVICE_OVERLOADED',
}

export interface ErrorCodeEntry {
  status: number;
  /** The code written on the wire when it differs from the catalogue key. */
  publicCode?: string;
  /** The message of the OpenAPI example (real messages are more specific); default: the code in words. */
  example?: string;
  /** `error.details` of the OpenAPI example, for a code whose answer carries some. */
  exampleDetails?: unknown;
  /** A 503 that retrying cannot cure (a feature not configured): answered without Retry-After. */
  permanent?: true;
}

export const ERROR_CATALOGUE: Record<ErrorCode, ErrorCodeEntry> = {
  [ErrorCode.VALIDATION_ERROR]: { status: 400, example: 'The request is invalid' },
  [ErrorCode.BOT_CHALLENGE_FAILED]: { status: 400 },
  [ErrorCode.INVALID_RESET_CODE]: { status: 400 },
  [ErrorCode.PASSWORD_BREACHED]: { status: 400, example: 'This password appears in a known data breach and would be easy to guess; choose a different one' },
  [ErrorCode.INVALID_RESET_TOKEN]: { status: 400, publicCode: 'INVALID_TOKEN' },
  [ErrorCode.INVALID_EMAIL_TOKEN]: { status: 400, publicCode: 'INVALID_TOKEN', example: 'The code is invalid, expired or already used' },
  [ErrorCode.INVALID_SIGNATURE]: { status: 400 },
  [ErrorCode.CURSOR_MISMATCH]: { status: 400 },
  [ErrorCode.AUTH_REQUIRED]: { status: 401, example: 'A valid access token is required' },
  [ErrorCode.INVALID_CREDENTIALS]: { status: 401 },
  [ErrorCode.INVALID_TOKEN]: { status: 401, example: 'The token is invalid or expired' },
  [ErrorCode.MFA_REQUIRED]: {
    status: 401,
    example: 'This account uses a second factor: send a code with the challenge token to POST /api/v1/auth/mfa/verify',
    exampleDetails: { challengeToken: 'mfa_4Qh0bB3dV2nK8sX1yT6wZ9eR5uI7oP0aS2dF4gH6jK8', expiresIn: 300, methods: ['totp', 'recovery_code'] },
  },
  [ErrorCode.MFA_CODE_REQUIRED]: { status: 401, example: 'This account uses a second factor: send `code`, the authenticator’s current code or a recovery code' },
  [ErrorCode.ADMIN_AUTH_REQUIRED]: { status: 401 },
  [ErrorCode.API_KEY_REQUIRED]: { status: 401, example: 'An API key is required (Authorization: Bearer tdk_… or X-API-Key)' },
  [ErrorCode.INVALID_API_KEY]: { status: 401, example: 'The API key is invalid, revoked or expired' },
  [ErrorCode.SUBSCRIPTION_REQUIRED]: { status: 402 },
  [ErrorCode.FORBIDDEN]: { status: 403 },
  [ErrorCode.EMAIL_NOT_VERIFIED]: { status: 403, example: 'Confirm the account’s current e-mail address first' },
  [ErrorCode.QUOTA_EXCEEDED]: { status: 403, example: 'This account already has 20 sites, the most it may have' },
  [ErrorCode.NOT_FOUND]: { status: 404, example: 'Not found' },
  [ErrorCode.USER_NOT_FOUND]: { status: 404 },
  [ErrorCode.CUSTOMER_NOT_FOUND]: { status: 404 },
  [ErrorCode.SUBSCRIPTION_NOT_FOUND]: { status: 404 },
  [ErrorCode.BETA_ACCESS_NOT_FOUND]: { status: 404 },
  [ErrorCode.METHOD_NOT_ALLOWED]: { status: 405 },
  [ErrorCode.NOT_ACCEPTABLE]: { status: 406 },
  [ErrorCode.CONFLICT]: { status: 409 },
  [ErrorCode.EMAIL_TAKEN]: { status: 409 },
  [ErrorCode.USERNAME_TAKEN]: { status: 409 },
  [ErrorCode.BETA_LIFETIME_ACCESS]: { status: 409 },
  [ErrorCode.SUBSCRIPTION_NOT_REACTIVATABLE]: { status: 409 },
  [ErrorCode.SUBSCRIPTION_ALREADY_ACTIVE]: { status: 409 },
  [ErrorCode.BATCH_NOT_SENT]: { status: 409 },
  [ErrorCode.BATCH_ALREADY_SENT]: { status: 409, example: 'The batch was sent: only a draft can be edited, deleted or sent' },
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: { status: 422 },
  [ErrorCode.IDENTITY_TOKEN_INVALID]: { status: 400, example: "The reporter token is not signed with this site's identity secret" },
  [ErrorCode.PAYLOAD_TOO_LARGE]: { status: 413 },
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: { status: 415 },
  [ErrorCode.RATE_LIMITED]: { status: 429, example: 'Too many requests; retry in 42 s' },
  [ErrorCode.INTERNAL_ERROR]: { status: 500, example: 'An unexpected error occurred' },
  [ErrorCode.PAYMENT_PROVIDER_ERROR]: { status: 502 },
  [ErrorCode.BILLING_UNAVAILABLE]: { status: 503, permanent: true },
  [ErrorCode.SERVICE_DEGRADED]: { status: 503 },
  [ErrorCode.SERVICE_UNAVAILABLE]: { status: 503 },
  [ErrorCode.SERVICE_OVERLOADED]: { status: 503, example: 'The service is overloaded; retry in 1 s' },
};

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** Whether retrying can cure this error (every 503 but a permanent one): its answer carries Retry-After. */
export function isRetryableUnavailability(code: ErrorCode): boolean {
  const entry = ERROR_CATALOGUE[code];
  return entry.status === 503 && !entry.permanent;
}

export function publicCodeOf(code: ErrorCode): string {
  return ERROR_CATALOGUE[code].publicCode ?? code;
}
