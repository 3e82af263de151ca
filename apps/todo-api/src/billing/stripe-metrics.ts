import type { Counter, Histogram } from 'prom-client';
import type Stripe from 'stripe';
import { pathBeforeQuery, type AppMetrics } from '#libs/common';
import { outgoingCall } from '#libs/tracing';

type HttpClient = ReturnType<typeof Stripe.createNodeHttpClient>;

/** Stripe call latency buckets (seconds): Stripe usually answers in 0.2..2 s. */
const STRIPE_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/** `/v1/customers/cus_Nff…?expand=x` -> `/v1/customers/:id`: object ids (digits or capitals) never become labels. */
function stripePathTemplate(path: string): string {
  return pathBeforeQuery(path)
    .split('/')
    .map((segment) => (/[0-9A-Z]/.test(segment) && segment !== 'v1' ? ':id' : segment))
    .join('/');
}

/** Why a Stripe call counts as failed: no answer, or an answer that is not a success. */
function failureReason(error: unknown): string {
  return (error as { code?: unknown })?.code === 'ETIMEDOUT' ? 'timeout' : 'connection';
}

/**
 * The SDK's own Node HTTP client, measured: every Stripe request (whichever service makes it)
 * is timed until Stripe's answer arrives, by method and path template, and counted as failed
 * when no answer came (timeout, connection) or the answer was not a 2xx.
 */
export function measuredStripeHttpClient(metrics: AppMetrics, sdk: Pick<typeof Stripe, 'createNodeHttpClient'>): HttpClient {
  const inner = sdk.createNodeHttpClient();
  const duration: Histogram<'method' | 'path' | 'status'> = metrics.histogram({
    name: 'stripe_request_duration_seconds',
    help: 'Time until Stripe answered (or the call gave up), by method, path template and status (`none`: no answer)',
    labelNames: ['method', 'path', 'status'],
    buckets: STRIPE_DURATION_BUCKETS,
  });
  const failures: Counter<'method' | 'path' | 'reason'> = metrics.counter({
    name: 'stripe_request_failures_total',
    help: 'Stripe requests that got no answer (reason timeout or connection) or a non-2xx answer (reason = the status class, e.g. 5xx, 429, 4xx)',
    labelNames: ['method', 'path', 'reason'],
  });
  const makeRequest: HttpClient['makeRequest'] = async (host, port, path, method, headers, requestData, protocol, timeout) => {
    const labels = { method, path: stripePathTemplate(path) };
    const started = performance.now();
    try {
      // In a traced request: a client span, and `traceparent` to Stripe.
      const response = await outgoingCall(method, host, Number(port), headers as Record<string, string>, () =>
        inner.makeRequest(host, port, path, method, headers, requestData, protocol, timeout),
      );
      const status = response.getStatusCode();
      duration.observe({ ...labels, status: String(status) }, (performance.now() - started) / 1000);
      if (status < 200 || status > 299) failures.inc({ ...labels, reason: status === 429 ? '429' : `${Math.floor(status / 100)}xx` });
      return response;
    } catch (error) {
      duration.observe({ ...labels, status: 'none' }, (performance.now() - started) / 1000);
      failures.inc({ ...labels, reason: failureReason(error) });
      throw error;
    }
  };
  return Object.assign(Object.create(inner) as HttpClient, { makeRequest });
}
