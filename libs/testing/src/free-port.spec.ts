import { describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { freePort } from './free-port.js';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePort', () => {
  it('hands out bindable ports below the ephemeral range, never the same one twice in a row, skipping one taken', async () => {
    const first = await freePort();
    expect(first).toBeGreaterThanOrEqual(15_000);
    expect(first).toBeLessThan(32_768);
    // Taken by someone else: the next port is skipped over.
    const taken = await listen(first + 1).catch(() => undefined);
    try {
      const second = await freePort();
      expect(second).not.toBe(first);
      if (taken) expect(second).not.toBe(first + 1);
      const server = await listen(second);
      await new Promise((resolve) => server.close(resolve));
    } finally {
      await new Promise((resolve) => (taken ? taken.close(resolve) : resolve(undefined)));
    }
  });
});
