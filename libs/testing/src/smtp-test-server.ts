import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The Subject header, unfolded. */
  subject: string;
  raw: string;
}

/**
 * Which mails a test means besides their recipient: an account gets several kinds (signup's verification, reset
 * codes, change notices), so a test picks its kind by subject instead of counting on being the only or last mail.
 */
export interface MailMatch {
  subject?: string;
}

function subjectOf(raw: string): string {
  const headers = raw.split(/\r?\n\r?\n/, 1)[0].replace(/\r?\n[ \t]+/g, ' ');
  return headers.split(/\r?\n/).find((line) => line.toLowerCase().startsWith('subject:'))?.slice('subject:'.length).trim() ?? '';
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives, for tests of mail flows
 * (point SMTP_URL at `url`).
 */
export class SmtpTestServer {
  readonly messages: ReceivedMail[] = [];
  private server?: SMTPServer;
  url = '';

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            subject: subjectOf(raw),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    const port = ((this.server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
    this.url = `smtp://127.0.0.1:${port}`;
  }

  /** Messages to `address` (with exactly `match.subject` when given), newest last. */
  to(address: string, match: MailMatch = {}): ReceivedMail[] {
    return this.messages.filter(
      (message) => message.to.some((to) => to.toLowerCase() === address.toLowerCase()) && (match.subject === undefined || message.subject === match.subject),
    );
  }

  /** Waits (bounded) until a message to `address` (matching `match`) arrives after `afterCount` earlier such ones. */
  async waitFor(address: string, afterCount = 0, match: MailMatch = {}, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const list = this.to(address, match);
      if (list.length > afterCount) return list[list.length - 1];
      await sleep(25);
    }
    throw new Error(`No mail to ${address}${match.subject === undefined ? '' : ` with subject "${match.subject}"`} within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
