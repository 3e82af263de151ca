import type { MailMatch, ReceivedMail, SmtpTestServer } from '#libs/testing';
import { MAIL_SUBJECTS } from '../../libs/identity/src/email-verification/email-verification.service.js';
import { NEW_SIGN_IN_SUBJECT } from '../../libs/identity/src/email-verification/sign-in-notices.service.js';
import { WEBHOOK_DISABLED_SUBJECT } from '../../apps/todo-api/src/webhooks/todo-webhook-events.js';
import type { TestApp } from './test-apps.js';

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

/** The code of a verification, change or revert mail (the line after the first blank line of the body). */
export function mailedCode(mail: ReceivedMail): string {
  const match = /\r?\n\r?\n([A-Za-z0-9_-]{43})\r?\n/.exec(mail.raw.slice(mail.raw.search(/\r?\n\r?\n/)));
  if (!match) throw new Error(`no code in the mail "${mail.subject}"`);
  return match[1];
}

/** The code of the latest verification mail `email` received (waiting for the first one signup sends). */
export async function verificationCode(smtp: SmtpTestServer, email: string): Promise<string> {
  await smtp.waitFor(email, 0, ACCOUNT_MAILS.verifyEmail);
  return mailedCode(smtp.to(email, ACCOUNT_MAILS.verifyEmail).at(-1)!);
}

/**
 * Confirms an account's address as its owner does (the mailed code, POST /api/v1/auth/verify-email): the one way tests
 * get a verified account, which enrolling a second factor and changing the e-mail need. The app must mail to `smtp`.
 */
export async function confirmEmail(t: Pick<TestApp, 'http'>, smtp: SmtpTestServer, email: string): Promise<void> {
  const res = await t.http.post('/api/v1/auth/verify-email').send({ token: await verificationCode(smtp, email) });
  if (res.status !== 200) throw new Error(`verify-email answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** A mail's body as written (quoted-printable undone: nodemailer folds long lines such as links). */
function mailBody(mail: ReceivedMail): string {
  const body = mail.raw.slice(mail.raw.search(/\r?\n\r?\n/));
  if (!/^content-transfer-encoding:\s*quoted-printable/im.test(mail.raw)) return body;
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first link of a mail to a page whose path is `path` (e.g. the verification mail's link to the account page). */
export function mailedLink(mail: ReceivedMail, path: string): URL {
  const link = mailBody(mail)
    .split(/\s+/)
    .find((word) => /^https?:\/\//.test(word) && new URL(word).pathname === path);
  if (!link) throw new Error(`no link to ${path} in the mail "${mail.subject}"`);
  return new URL(link);
}
