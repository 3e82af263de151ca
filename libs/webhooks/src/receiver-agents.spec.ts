import { describe, expect, it } from '@jest/globals';
import { createServer, request, type Agent } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RECEIVER_IDLE_SOCKET_MS, receiverAgents } from './receiver-agents.js';

/** One POST through `agent`; resolves when its answer has been read. */
function post(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent }, (response) => {
      response.resume().on('end', () => resolve(response.statusCode!));
    });
    sent.on('error', reject);
    sent.end('{}');
  });
}

describe('receiverAgents', () => {
  // A receiver that keeps idle connections a minute and announces nothing: only our side can close one before then.
  it('reuses a connection between deliveries and closes it itself once idle, without waiting for the receiver', async () => {
    const closedAfterMs: number[] = [];
    const connections: Socket[] = [];
    const receiver = createServer((_request, response) => {
      response.shouldKeepAlive = true;
      response.removeHeader('Keep-Alive');
      response.writeHead(204).end();
    });
    receiver.keepAliveTimeout = 60_000;
    receiver.on('connection', (socket: Socket) => {
      connections.push(socket);
      socket.on('close', () => closedAfterMs.push(Date.now() - lastAnswer));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const agents = receiverAgents();
    let lastAnswer = Date.now();
    try {
      expect(await post(port, agents.http)).toBe(204);
      expect(await post(port, agents.http)).toBe(204);
      lastAnswer = Date.now();
      expect(connections).toHaveLength(1);
      const deadline = Date.now() + RECEIVER_IDLE_SOCKET_MS + 3_000;
      while (closedAfterMs.length === 0 && Date.now() < deadline) await sleep(100);
      expect(closedAfterMs).toHaveLength(1);
      expect(closedAfterMs[0]).toBeGreaterThanOrEqual(RECEIVER_IDLE_SOCKET_MS - 200);
    } finally {
      agents.http.destroy();
      agents.https.destroy();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 15_000);
});
