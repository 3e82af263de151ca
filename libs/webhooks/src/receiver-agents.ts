import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * How long a connection to a receiver may sit idle before we close it. Reusing a connection the receiver is closing
 * at that moment fails the attempt with ECONNRESET (CI saw a test event take two attempts this way). Node's agent
 * honours a receiver's `Keep-Alive: timeout=N` only by lowering its own socket timeout, and with none set (the
 * default, 0) it keeps an idle connection until the receiver closes it. 4 s is under the common server defaults
 * (Node and Apache 5 s, nginx 75 s, load balancers 60 s), as undici's own default is.
 */
export const RECEIVER_IDLE_SOCKET_MS = 4_000;

/**
 * Keep-alive agents for deliveries: connections are reused between attempts, closed by us after
 * RECEIVER_IDLE_SOCKET_MS idle (sooner when the receiver announces a shorter Keep-Alive timeout).
 */
export function receiverAgents(): { http: HttpAgent; https: HttpsAgent } {
  const options = { keepAlive: true, maxFreeSockets: 64, timeout: RECEIVER_IDLE_SOCKET_MS };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}
