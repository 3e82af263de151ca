import { describe, expect, it } from '@jest/globals';
import { AppMetrics } from '#libs/common';
import { loadConfig } from '#libs/config';
import { HASHING_QUEUE, HASHING_SLOTS, PasswordHasher } from './password-hasher.js';

const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), BCRYPT_COST: '4' });
const hasher = new PasswordHasher(config, new AppMetrics());

async function metricValue(metrics: AppMetrics, name: string): Promise<number> {
  const text = await metrics.registry.getSingleMetricAsString(name);
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
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

  it('shows its queue in the metrics and counts the hashes refused when the queue is full', async () => {
    const metrics = new AppMetrics();
    const flooded = new PasswordHasher(config, metrics);
    const attempts = Array.from({ length: HASHING_SLOTS + HASHING_QUEUE + 25 }, () => flooded.hash('correct horse battery'));
    expect(await metricValue(metrics, 'password_hashing_queue_depth')).toBe(HASHING_QUEUE);
    expect(await metricValue(metrics, 'password_hashing_in_progress')).toBe(HASHING_SLOTS);
    const outcomes = await Promise.allSettled(attempts);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').length;
    expect(refused).toBe(25);
    expect(await metricValue(metrics, 'password_hashing_rejections_total')).toBe(25);
    expect(await metricValue(metrics, 'password_hashing_queue_depth')).toBe(0);
  });
});
