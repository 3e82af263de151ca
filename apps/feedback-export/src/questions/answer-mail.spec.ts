import { describe, expect, it } from '@jest/globals';
import { ANSWER_MAIL_SUBJECT, defangCallerText, renderAnswerMail } from './answer-mail.js';
import { UnsubscribeTokenCodec } from './unsubscribe-token.js';

describe('answer mail', () => {
  it('defangs what a mail client would link, and strips control and bidi characters', () => {
    expect(defangCallerText('see https://evil.example/x or www.evil.example, mail me@evil.example')).toBe(
      'see https[:]//evil[.]example/x or www[.]evil[.]example, mail me[at]evil[.]example',
    );
    expect(defangCallerText('line\r\nbreak\u202Egnp.exe\u200B')).toBe('line break gnp[.]exe');
    expect(defangCallerText('Q3 review.')).toBe('Q3 review.');
  });

  it('has a fixed subject and quotes the caller text escaped in the HTML part', () => {
    const mail = renderAnswerMail({
      serviceHost: 'feedback.example.test',
      batchTitle: '<a href="http://evil.example">x</a>',
      siteName: 'Shop',
      answered: 1,
      questions: 2,
      dashboardUrl: 'https://feedback.example.test/dashboard',
      unsubscribeUrl: 'https://feedback.example.test/unsubscribe/t',
    });
    expect(mail.subject).toBe(ANSWER_MAIL_SUBJECT);
    expect(mail.html).toContain('&lt;a href=&quot;http[:]//evil[.]example&quot;&gt;x&lt;/a&gt;');
    expect(mail.text).toContain('> <a href="http[:]//evil[.]example">x</a>');
    expect(mail.text).toContain('1 of 2 questions answered');
  });

  it('opens only unsubscribe tokens it sealed', () => {
    const codec = new UnsubscribeTokenCodec('s'.repeat(40));
    const target = { siteId: '0b6f4a52-8f1e-4c8e-9d0a-3c2b1a0f9e8d', recipientDigest: 'ab'.repeat(16) };
    const token = codec.seal(target);
    expect(token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(codec.open(token)).toEqual(target);
    expect(new UnsubscribeTokenCodec('t'.repeat(40)).open(token)).toBeUndefined();
    expect(codec.open(`${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`)).toBeUndefined();
    expect(codec.open('short')).toBeUndefined();
  });
});
