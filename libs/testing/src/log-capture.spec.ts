import { describe, expect, it } from '@jest/globals';
import { LogCapture } from './log-capture.js';

function captured(...lines: object[]): LogCapture {
  const logs = new LogCapture();
  for (const line of lines) logs.write(`${JSON.stringify(line)}\n`);
  return logs;
}

describe('LogCapture.leaksOf', () => {
  it('finds a secret written as a value, in a URL or in free text', () => {
    const logs = captured({ msg: 'reset', code: '805303' }, { req: { url: '/verify?code=805303&x=1' } }, { msg: 'token abc.def-ghi_jkl leaked' });
    expect(logs.leaksOf(['805303'])).toHaveLength(2);
    expect(logs.leaksOf(['abc.def-ghi_jkl'])).toHaveLength(1);
    expect(logs.leaksOf(['$2b$10$abcdefghij'])).toEqual([]);
    expect(captured({ hash: '$2b$10$abcdefghij' }).leaksOf(['$2b$10$abcdefghij'])).toHaveLength(1);
  });

  it('does not count a short code that a timestamp or a request id happens to contain', () => {
    // The CI failure this guards against: a reset code inside the millisecond timestamp of an unrelated line.
    const logs = captured({ time: 1795805303617, req: { id: '769fdc1c-65a1-41e3-91ff-b942346949f4' }, msg: 'request completed' });
    expect(logs.leaksOf(['805303', '346949', 'fdc1c6'])).toEqual([]);
  });

  it('ignores secrets too short to be told from noise', () => {
    expect(captured({ msg: 'abc' }).leaksOf(['abc', ''])).toEqual([]);
  });
});
