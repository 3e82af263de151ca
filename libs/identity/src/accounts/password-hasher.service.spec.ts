import { describe, expect, it } from '@jest/globals';
import { AppMetrics } from '#libs/common';
import { loadConfig } from '#libs/config';
import { HASHING_QUEUE, HASHING_SLOTS, PasswordHasher } from './password-hasher.service.js';

const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), BCRYPT_COST: '4' });
const hasher = new PasswordHasher(config, new AppMetrics());

async function metricValue(metrics: AppMetrics, name: string, labels = ''): Promise<number> {
  const text = await metrics.registry.getSingleMetricAsString(name);
  const escaped = labels.replace(/[{}]/g, (c) => `\\${c}`);
  return Number(new RegExp(`^${name}${escaped} (\\S+)$`, 'm').exec(text)?.[1]);
}

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

  it('shows each lane’s queue in the metrics and counts the hashes refused when a lane’s queue is full', async () => {
    const metrics = new AppMetrics();
    const flooded = new PasswordHasher(config, metrics);
    const newPasswords = HASHING_QUEUE['new-password'];
    const attempts = Array.from({ length: HASHING_SLOTS + newPasswords + 25 }, () => flooded.hash('correct horse battery'));
    expect(await metricValue(metrics, 'password_hashing_queue_depth', '{lane="new-password"}')).toBe(newPasswords);
    expect(await metricValue(metrics, 'password_hashing_queue_depth', '{lane="sign-in"}')).toBe(0);
    expect(await metricValue(metrics, 'password_hashing_in_progress')).toBe(HASHING_SLOTS);
    const outcomes = await Promise.allSettled(attempts);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').length;
    expect(refused).toBe(25);
    expect(await metricValue(metrics, 'password_hashing_rejections_total', '{lane="new-password"}')).toBe(25);
    expect(await metricValue(metrics, 'password_hashing_rejections_total', '{lane="sign-in"}')).toBe(0);
    expect(await metricValue(metrics, 'password_hashing_queue_depth', '{lane="new-password"}')).toBe(0);
  });

  it('checks a password before every queued new-password hash: a signup flood never starves sign-in', async () => {
    const busy = new PasswordHasher(config, new AppMetrics());
    const stored = await busy.hash('correct horse battery');
    const finished: string[] = [];
    const signups = Array.from({ length: HASHING_SLOTS + HASHING_QUEUE['new-password'] + 10 }, (_, i) =>
      busy.hash(`signup password ${i}`).then(
        () => void finished.push('signup'),
        () => void finished.push('refused signup'),
      ),
    );
    // Queued after the flood (whose queue is full), still admitted, and served before any waiting signup.
    const login = busy.verify('correct horse battery', stored).then((valid) => void finished.push(`login ${valid}`));
    await Promise.all([login, ...signups]);
    const loginAt = finished.indexOf('login true');
    const signupsBefore = finished.slice(0, loginAt).filter((entry) => entry === 'signup').length;
    expect(signupsBefore).toBeLessThanOrEqual(HASHING_SLOTS);
    expect(finished.filter((entry) => entry === 'refused signup')).toHaveLength(10);
  });
});
