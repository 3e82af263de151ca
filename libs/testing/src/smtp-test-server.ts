import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
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
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    const port = ((this.server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
    this.url = `smtp://127.0.0.1:${port}`;
  }

  /** Messages to `address`, newest last. */
  to(address: string): ReceivedMail[] {
    return this.messages.filter((message) => message.to.some((to) => to.toLowerCase() === address.toLowerCase()));
  }

  /** Waits (bounded) until a message to `address` arrives after `afterCount` earlier ones. */
  async waitFor(address: string, afterCount = 0, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const list = this.to(address);
      if (list.length > afterCount) return list[list.length - 1];
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`No mail to ${address} within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
