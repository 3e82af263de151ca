import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '#libs/config';
import { PasswordHasher } from './password-hasher.js';

const hasher = new PasswordHasher(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), BCRYPT_COST: '4' }));

describe('PasswordHasher', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hasher.hash('correct horse battery');
    expect(hash).toMatch(/^\$2[aby]\$04\$/);
    await expect(hasher.verify('correct horse battery', hash)).resolves.toBe(true);
    await expect(hasher.verify('correct horse batterx', hash)).resolves.toBe(false);
  });

  it('counts every byte of a long password (no truncation at 72 bytes)', async () => {
    const base = 'é'.repeat(60); // 120 bytes in UTF-8
    const hash = await hasher.hash(base + 'a');
    await expect(hasher.verify(base + 'b', hash)).resolves.toBe(false);
    await expect(hasher.verify(base + 'a', hash)).resolves.toBe(true);
  });

  it('spends a real comparison on unknown accounts', async () => {
    await expect(hasher.verifyNothing('whatever')).resolves.toBe(false);
  });
});
