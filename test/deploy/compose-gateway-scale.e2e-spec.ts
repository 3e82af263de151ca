/**
 * `docker compose up --scale todo-api=N` behind compose's own gateway (docker/nginx/gateway.conf,
 * not the test template): nginx resolves the service names while running, so replicas that appear
 * or go away are followed without a gateway restart. Docker's DNS (127.0.0.11) is played by a stub
 * DNS server on a loopback port whose answer the test changes; the replicas are stub HTTP servers
 * on 127.0.0.1 and 127.0.0.2 (one port, as compose's replicas share the service's port). Only the
 * resolver address, its cache time (5 s → 1 s), the ports and the worker count are rewritten.
 *
 * Needs /usr/sbin/nginx (or NGINX_BIN); without it the suite skips with one line (fails under CI=true).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { freePort, outsideProgramInstalled, until } from '#libs/testing';
import { NGINX_BIN, NGINX_DIR, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const HAS_NGINX = outsideProgramInstalled('compose-gateway-scale', NGINX_BIN, 'install nginx (Debian: nginx-light) or set NGINX_BIN');

/** A DNS server answering A queries from `records` (name → addresses), TTL 1 s; any other name: NXDOMAIN. */
class StubDns {
  readonly records = new Map<string, string[]>();
  private readonly socket: Socket = createSocket('udp4');

  async start(): Promise<number> {
    this.socket.on('message', (query, peer) => this.socket.send(this.answer(query), peer.port, peer.address));
    await new Promise<void>((ready) => this.socket.bind(0, '127.0.0.1', () => ready()));
    return this.socket.address().port;
  }

  stop(): Promise<void> {
    return new Promise((done) => this.socket.close(() => done()));
  }

  private answer(query: Buffer): Buffer {
    // Header (12 bytes), then the question: length-prefixed labels ending in 0, type, class.
    const labels: string[] = [];
    let at = 12;
    while (query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
      at += query[at] + 1;
    }
    const questionEnd = at + 5;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    const addresses = this.records.get(name);
    const answers = type === 1 ? (addresses ?? []) : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0); // id
    header.writeUInt16BE(0x8180 | (addresses === undefined ? 3 : 0), 2); // response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(1, 6); // TTL
      record.writeUInt16BE(4, 10);
      address.split('.').forEach((octet, index) => record.writeUInt8(Number(octet), 12 + index));
      return record;
    });
    return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
  }
}

/** A replica: answers every request with its name and the path it got. */
async function startReplica(name: string, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ replica: name, path: request.url }));
  });
  await new Promise<void>((ready, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => ready());
  });
  return server;
}

function stopReplica(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

function replace(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.split(from).join(to);
}

const describeNginx = HAS_NGINX ? describe : describe.skip;

describeNginx('compose gateway (docker/nginx/gateway.conf) follows scaled replicas through its resolver', () => {
  const dns = new StubDns();
  let appPort: number;
  let gatewayPort: number;
  let gateway: TestGateway | undefined;
  const replicas = new Map<string, Server>();

  /** node:http, not fetch: fetch does not send a Host header of the caller's choosing. */
  function get(path: string, host?: string): Promise<{ status: number; replica?: string; path?: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: gatewayPort, path, headers: host ? { Host: host } : {}, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(JSON.parse(body) as { replica?: string; path?: string }) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    const dnsPort = await dns.start();
    appPort = await freePort();
    const feedbackPort = await freePort();
    gatewayPort = await freePort();
    replicas.set('todo-1', await startReplica('todo-1', '127.0.0.1', appPort));
    replicas.set('feedback-1', await startReplica('feedback-1', '127.0.0.1', feedbackPort));
    dns.records.set('todo-api', ['127.0.0.1']);
    dns.records.set('feedback-export', ['127.0.0.1']);

    let config = readFileSync(join(NGINX_DIR, 'gateway.conf'), 'utf8');
    config = replace(config, 'resolver 127.0.0.11 valid=5s ipv6=off;', `resolver 127.0.0.1:${dnsPort} valid=1s ipv6=off;`);
    config = replace(config, 'todo-api:3000', `todo-api:${appPort}`);
    config = replace(config, 'feedback-export:3001', `feedback-export:${feedbackPort}`);
    config = replace(config, 'listen 8080 default_server;', `listen 127.0.0.1:${gatewayPort} default_server;`);
    config = replace(config, 'worker_processes auto;', 'worker_processes 1;');
    gateway = await startTestGateway({ config, port: gatewayPort, readyPath: '/todo/api/v1/status', label: 'compose-gateway' });
  }, 30_000);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([...replicas.values()].map((server) => (server.listening ? stopReplica(server) : undefined)));
    await dns.stop();
  }, 30_000);

  it('reaches the apps by service name, prefix and host routes alike', async () => {
    expect(await get('/todo/api/v1/status?x=1')).toEqual({ status: 200, replica: 'todo-1', path: '/api/v1/status?x=1' });
    expect(await get('/feedback/widget.js')).toEqual({ status: 200, replica: 'feedback-1', path: '/widget.js' });
    expect(await get('/api/v1/todos/events', 'todo.example.test')).toEqual({ status: 200, replica: 'todo-1', path: '/api/v1/todos/events' });
    expect(await get('/api/v1/status', 'feedback.example.test')).toEqual({ status: 200, replica: 'feedback-1', path: '/api/v1/status' });
  });

  it('scaled up: the new replica gets traffic without a gateway restart', async () => {
    replicas.set('todo-2', await startReplica('todo-2', '127.0.0.2', appPort));
    dns.records.set('todo-api', ['127.0.0.1', '127.0.0.2']);
    const seen = new Set<string>();
    await until(async () => {
      const reply = await get('/todo/api/v1/status');
      expect(reply.status).toBe(200);
      seen.add(reply.replica!);
      return seen.size === 2;
    }, 30_000, 'requests on both replicas');
  }, 40_000);

  it('a replica gone while the name still lists it costs no request a 502 (the next address is tried), and once the name drops it all go to the other', async () => {
    await stopReplica(replicas.get('todo-1')!);
    for (let i = 0; i < 30; i += 1) expect(await get('/todo/api/v1/status')).toMatchObject({ status: 200, replica: 'todo-2' });
    dns.records.set('todo-api', ['127.0.0.2']);
    for (let i = 0; i < 10; i += 1) expect(await get('/todo/api/v1/status')).toMatchObject({ status: 200, replica: 'todo-2' });
  }, 30_000);
});
