import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { GracefulShutdown } from '../lifecycle/graceful-shutdown.service.js';
import { UNMATCHED_ROUTE, type AppMetrics } from '../metrics/app-metrics.js';

type RoutedRequest = IncomingMessage & { route?: { path?: unknown } };

/**
 * Sees every request before Express does: counts it in flight for the drain and, when its
 * response is done, observes it in the HTTP metrics under the route template Express matched
 * (`/api/v1/todos/:todoId`, never the path itself), or UNMATCHED_ROUTE.
 * Per request: one timestamp and one listener; the metric series are looked up, not built.
 */
export function observeRequests(server: Server, metrics: AppMetrics, shutdown: GracefulShutdown): void {
  shutdown.attach(server);
  server.prependListener('request', (request: RoutedRequest, response: ServerResponse) => {
    const started = performance.now();
    shutdown.admit(response);
    response.once('close', () => {
      shutdown.release(response);
      const route = request.route?.path;
      metrics.observeRequest(request.method ?? 'UNKNOWN', typeof route === 'string' ? route : UNMATCHED_ROUTE, response.statusCode, (performance.now() - started) / 1000);
    });
  });
}
