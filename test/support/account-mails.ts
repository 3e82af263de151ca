import type { MailMatch } from '#libs/testing';
import { MAIL_SUBJECTS } from '../../libs/identity/src/email-verification/email-verification.service.js';
import { NEW_SIGN_IN_SUBJECT } from '../../libs/identity/src/email-verification/sign-in-notices.service.js';
import { WEBHOOK_DISABLED_SUBJECT } from '../../apps/todo-api/src/webhooks/webhook-owner-mail.service.js';

/**
 * The kinds of mail todo-api sends an account, as `SmtpTestServer.to`/`waitFor` select them: a test names the one it
 * means, never "the only" or "the last" mail (signup also mails a verification code).
 */
export const ACCOUNT_MAILS = {
  resetCode: { subject: 'Your password reset code' },
  verifyEmail: { subject: MAIL_SUBJECTS.verify },
  confirmNewEmail: { subject: MAIL_SUBJECTS.change },
  emailChanged: { subject: MAIL_SUBJECTS.changed },
  newSignIn: { subject: NEW_SIGN_IN_SUBJECT },
  webhookDisabled: { subject: WEBHOOK_DISABLED_SUBJECT },
} as const satisfies Record<string, MailMatch>;
