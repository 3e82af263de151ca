import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A delivery's payload as the receiver verified it, with the `webhook-id` it came under. */
export interface SignedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: any;
}

/**
 * The payloads of `hits`, each verified (Standard Webhooks, with the standardwebhooks library) against `secret`:
 * throws at the first hit that secret did not sign.
 */
export function verifiedEvents(secret: string, hits: Hit[]): SignedEvent[] {
  const verifier = new Webhook(secret);
  return hits.map((hit) => ({ id: String(hit.headers['webhook-id']), ...(verifier.verify(hit.body, hit.headers as Record<string, string>) as Omit<SignedEvent, 'id'>) }));
}

/** What the receiver answers to the n-th request (0-based) on a path: a status, or 'hang' (never answers). */
export type Behaviour = (n: number) => number | 'hang';

/** A real HTTP receiver on 127.0.0.1: records every request and answers as told per path (200 by default). */
export async function startReceiver() {
  const hits: Hit[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const n = hits.filter((hit) => hit.path === path).length;
      hits.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = (behaviours.get(path) ?? (() => 200))(n);
      if (answer === 'hang') hanging.push(response);
      else response.writeHead(answer, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    hits,
    behaviours,
    on: (path: string) => hits.filter((hit) => hit.path === path),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
