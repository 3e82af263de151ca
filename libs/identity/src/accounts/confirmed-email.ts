import { AppException, ErrorCode } from '#libs/common';
import type { UserRow } from './account.rows.js';

/**
 * The one rule of what e-mail verification gates (issue 29: only what it added, a change of e-mail and enrolling a
 * second factor; no published route): the account's current address must be confirmed, else 403 EMAIL_NOT_VERIFIED.
 * Called after the password check, so the answer tells nothing to someone who does not know it.
 */
export function requireConfirmedEmail(user: Pick<UserRow, 'emailConfirmed'>): void {
  if (user.emailConfirmed !== 1) throw new AppException(ErrorCode.EMAIL_NOT_VERIFIED, 'Confirm the account’s current e-mail address first (POST /api/v1/auth/verify-email/resend)');
}
