import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '#libs/config';
import { SmtpTestServer } from '#libs/testing';
import { MailService } from './mail.service.js';

describe('MailService', () => {
  const smtp = new SmtpTestServer();
  beforeAll(() => smtp.start());
  afterAll(() => smtp.stop());

  it('delivers through SMTP_URL', async () => {
    const mail = new MailService(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), SMTP_URL: smtp.url, MAIL_FROM: 'app@example.test' }));
    await mail.send({ to: 'someone@example.test', subject: 'Hello', text: 'Body 123456' });
    const received = await smtp.waitFor('someone@example.test');
    expect(received.from).toBe('app@example.test');
    expect(received.raw).toContain('Subject: Hello');
    expect(received.raw).toContain('Body 123456');
    mail.onModuleDestroy();
  });

  it('writes to DATA_DIR/outbox without SMTP_URL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mail-'));
    const mail = new MailService(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), DATA_DIR: dataDir }));
    await mail.send({ to: 'dev@example.test', subject: 'Code', text: 'Your code is 654321' });
    const files = readdirSync(join(dataDir, 'outbox'));
    expect(files).toHaveLength(1);
    const stored = JSON.parse(readFileSync(join(dataDir, 'outbox', files[0]), 'utf8'));
    expect(stored).toMatchObject({ to: 'dev@example.test', subject: 'Code', text: 'Your code is 654321' });
  });
});
