import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { AppConfig } from '#libs/config';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request id from the gateway when it is well-formed, else a fresh one. */
export function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const incoming = request.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** Headers that carry secrets; never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-admin-api-key"]',
  'req.headers["stripe-signature"]',
  'res.headers["set-cookie"]',
];

/** Paths whose next segment is a credential (question share links): logged as [redacted]. */
const SECRET_PATH_SEGMENT = /^(\/(?:q|api\/v1\/share)\/)[^/]+/;

/** Strips query strings (they may carry access_token) and share tokens from logged URLs. */
export function safeUrl(url: string | undefined): string | undefined {
  return url?.split('?')[0].replace(SECRET_PATH_SEGMENT, '$1[redacted]');
}

export function createLoggerModule(config: AppConfig, service: string, destination?: DestinationStream) {
  return LoggerModule.forRoot({
    pinoHttp: [
      {
        level: config.logLevel,
        base: { service },
        genReqId: requestIdFor,
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        serializers: {
          req: (req: any) => ({ id: req.id, method: req.method, url: safeUrl(req.url), remoteAddress: req.remoteAddress }),
          res: (res: any) => ({ statusCode: res.statusCode }),
        },
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
          err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'info',
        autoLogging: { ignore: (req: IncomingMessage) => req.url === '/api/v1/status' },
        // Loggers inside a request carry only its id; the request itself is serialised once, into
        // the access-log line, instead of into a child logger made for every request.
        quietReqLogger: true,
        quietResLogger: true,
        customSuccessObject: (req: IncomingMessage, _res: ServerResponse, value: Record<string, unknown>) => ({ req, ...value }),
        customErrorObject: (req: IncomingMessage, _res: ServerResponse, _error: Error, value: Record<string, unknown>) => ({ req, ...value }),
      },
      destination as DestinationStream,
    ],
  });
}
