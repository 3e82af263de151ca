import { shareTokenSealer } from '../../apps/feedback-export/src/questions/share-token.js';
import { SmtpTestServer, type TestDatabase } from '#libs/testing';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { createOwner, createSite, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';

export { bearer, createOwner, createSite, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';

/** Where the questions suites' feedback-export points its public links. */
export const QUESTIONS_PUBLIC_BASE = 'https://feedback.example.test';

export interface QuestionsApp {
  t: TestApp & { database: TestDatabase };
  smtp: SmtpTestServer;
  /** An owner, and their site named 'Main site'. */
  owner: TestOwner;
  site: TestSite;
  close(): Promise<void>;
}

/**
 * The questions suites' app: feedback-export on its own database, mailing from questions@example.test
 * through an SMTP test server it starts, its public links under QUESTIONS_PUBLIC_BASE, with an
 * owner and their 'Main site'. Call in beforeAll, close in afterAll.
 */
export async function startQuestionsApp(env: Record<string, string> = {}): Promise<QuestionsApp> {
  const smtp = new SmtpTestServer();
  await smtp.start();
  let t: QuestionsApp['t'];
  try {
    t = await startWithDatabase('feedback-export', { SMTP_URL: smtp.url, FEEDBACK_PUBLIC_BASE_URL: QUESTIONS_PUBLIC_BASE, MAIL_FROM: 'questions@example.test', ...env });
  } catch (error) {
    await smtp.stop();
    throw error;
  }
  const close = async () => {
    await t.close();
    await smtp.stop();
  };
  try {
    const owner = await createOwner(t);
    return { t, smtp, owner, site: await createSite(t, owner, 'Main site'), close };
  } catch (error) {
    await close();
    throw error;
  }
}

export const sampleQuestions = (count = 3) =>
  Array.from({ length: count }, (_, i) => ({ n: i + 1, title: `Question ${i + 1}`, html: `<p>Body of <em>question</em> ${i + 1}</p>` }));

/** The share token of any batch (drafts included), read back from the database as the service would. */
export async function shareTokenOf(t: TestApp, batchId: string): Promise<string> {
  const rows = await t.dataSource.query(`SELECT share_token_sealed AS sealed FROM question_batches WHERE id = $1`, [batchId]);
  const token = shareTokenSealer(t.config.jwtSecret).open(rows[0].sealed);
  if (!token) throw new Error('cannot unseal');
  return token;
}

export const tokenOfUrl = (shareUrl: string) => shareUrl.split('/q/')[1];

/** One header of a received mail (unfolded), or undefined. */
export function mailHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The decoded body part of a received mail with this content type (quoted-printable or 7/8 bit, ASCII content). */
export function mailPart(raw: string, contentType: 'text/plain' | 'text/html'): string {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  const part = parts.find((p) => new RegExp(`^Content-Type: ${contentType}`, 'im').test(p.split(/\r?\n\r?\n/)[0]));
  if (!part) throw new Error(`no ${contentType} part in the mail`);
  const [head, ...body] = part.split(/\r?\n\r?\n/);
  const text = body.join('\n\n').replace(/\r?\n--[^\r\n]+--\s*$/, '');
  if (!/quoted-printable/i.test(head)) return text;
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
