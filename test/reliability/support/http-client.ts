import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, already percent-encoded as sent on the wire. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/**
 * Sends exactly the bytes and headers given (no client-side normalising, unlike fetch),
 * so odd headers, wrong content types and malformed bodies reach the server as written.
 * A server-sent event stream is closed as soon as its headers arrive.
 */
export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 15000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    const headers: Record<string, string | number> = { ...(request.headers ?? {}) };
    if (body !== undefined) headers['Content-Length'] = body.length;
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent, timeout: timeoutMs },
      (res) => {
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: undefined });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${request.method} ${request.path}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Runs `tasks` with at most `limit` in flight. */
export async function inParallel<T>(items: T[], limit: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await run(items[index], index);
    }
  });
  await Promise.all(workers);
}

export function isEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const value = body as Record<string, unknown>;
  if (value.success === true) return 'data' in value && Object.keys(value).every((key) => key === 'success' || key === 'data');
  if (value.success === false) {
    const error = value.error as Record<string, unknown> | undefined;
    return (
      typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string' &&
      Object.keys(value).every((key) => key === 'success' || key === 'error') &&
      Object.keys(error).every((key) => key === 'code' || key === 'message' || key === 'details')
    );
  }
  return false;
}

export function isJsonRpcMessage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const value = body as Record<string, unknown>;
  return value.jsonrpc === '2.0' && ('result' in value || 'error' in value);
}
