import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from '@jest/globals';

const run = promisify(execFile);
/** The conformance tool's CLI, run on this process's Node (the pinned one), whatever `node` is first on PATH. */
const CONFORMANCE_CLI = 'node_modules/@modelcontextprotocol/conformance/dist/index.js';

/**
 * The official server scenarios both MCP endpoints pass. `initialize` is `server-initialize` among
 * the tool's scenarios. Conformance 0.1.16 has no `stateless` scenario (each endpoint's own suite
 * tests statelessness); `dns-rebinding-protection` targets unauthenticated localhost servers and
 * expects every localhost Origin to pass, while both endpoints allow only their configured origins
 * (tested in each endpoint's own suite).
 */
export const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list'] as const;

/** A loopback proxy that adds the credential headers: the conformance tool sends no credentials. */
export function credentialProxy(targetBase: string, headers: Record<string, string>): Promise<Server> {
  const target = new URL(targetBase);
  const server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: target.host, ...headers } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs each scenario of the conformance tool against the MCP endpoint at `path` of `baseUrl`, behind a proxy adding `headers`; expects none to fail. */
export async function expectConformance(baseUrl: string, path: string, headers: Record<string, string>): Promise<void> {
  const proxy = await credentialProxy(baseUrl, headers);
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${path}`;
  try {
    for (const scenario of CONFORMANCE_SCENARIOS) {
      const { stdout, stderr } = await run(process.execPath, [CONFORMANCE_CLI, 'server', '--url', proxyUrl, '--scenario', scenario], {
        timeout: 60_000,
      }).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`conformance ${scenario} failed:\n${error.stdout}\n${error.stderr}`);
      });
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(`${stdout}\n${stderr}`);
      expect([scenario, summary?.slice(1).map(Number)]).toEqual([scenario, [summary ? Number(summary[2]) : -1, expect.any(Number), 0]]);
      expect(Number(summary![2])).toBeGreaterThan(0);
    }
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
}
