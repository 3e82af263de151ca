import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Agent as HttpAgent, createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { guardedFetch, isPublicAddress, OutboundAddressRefusedError } from './outbound-fetch.js';

describe('isPublicAddress', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback (elsewhere in 127/8)', '127.45.6.7'],
    ['IPv6 loopback', '::1'],
    ['unspecified', '0.0.0.0'],
    ['IPv6 unspecified', '::'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.31.255.255'],
    ['private 192.168/16', '192.168.0.1'],
    ['link-local (metadata service)', '169.254.169.254'],
    ['IPv6 link-local', 'fe80::1'],
    ['unique-local', 'fd12:3456::1'],
    ['CGNAT', '100.64.0.1'],
    ['multicast', '224.0.0.1'],
    ['IPv6 multicast', 'ff02::1'],
    ['broadcast', '255.255.255.255'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['IPv4-compatible', '::7f00:1'],
    ['NAT64', '64:ff9b::a00:1'],
    ['6to4', '2002:7f00:1::1'],
    ['Teredo', '2001:0:4136:e378::1'],
    ['documentation', '2001:db8::1'],
    ['not an address', 'localhost'],
  ])('refuses %s (%s)', (_name, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('guardedFetch', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    ['an address literal', () => `http://127.0.0.1:${port}/`],
    ['a decimal address', () => `http://2130706433:${port}/`],
    ['a name resolving to loopback', () => `http://localhost:${port}/`],
    ['a mapped address', () => `http://[::ffff:127.0.0.1]:${port}/`],
  ])('refuses %s before connecting', async (_name, url) => {
    await expect(guardedFetch(url())).rejects.toBeInstanceOf(OutboundAddressRefusedError);
    expect(connections).toBe(0);
  });

  it('connects to loopback only when the test switch allows it', async () => {
    const response = await guardedFetch(`http://127.0.0.1:${port}/`, {}, { allowLoopback: true });
    expect([response.status, await response.text()]).toEqual([200, 'ok']);
    expect(connections).toBe(1);
  });
});

describe('guardedFetch with the caller\'s keep-alive agents', () => {
  let server: HttpServer;
  let port: number;
  let connections = 0;
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  beforeAll(async () => {
    server = createHttpServer((_request, response) => response.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    agents.http.destroy();
    agents.https.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reuses one connection for consecutive requests, and still refuses a name resolving to loopback', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await guardedFetch(`http://127.0.0.1:${port}/`, {}, { allowLoopback: true, agents });
      expect(await response.text()).toBe('ok');
    }
    expect(connections).toBe(1);
    await expect(guardedFetch(`http://localhost:${port}/`, {}, { agents })).rejects.toBeInstanceOf(OutboundAddressRefusedError);
    expect(connections).toBe(1);
  });
});
