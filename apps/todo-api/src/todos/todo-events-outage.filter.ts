import { ArgumentsHost, Catch, ExceptionFilter, Injectable } from '@nestjs/common';
import { createSession } from 'better-sse';
import type { Request, Response } from 'express';
import { AllExceptionsFilter, DEFAULT_RETRY_AFTER_SECONDS, DependencyOutages, isRetryableUnavailability, resolveError } from '#libs/common';

/** Reconnections after an outage are spread over this much past the `Retry-After` of the 503 they replace. */
const OUTAGE_RETRY_SPREAD_MS = 2000;

/** The `retry:` hint (ms) for a stream refused during an outage: the 503's `Retry-After`, spread. */
function outageRetryMs(retryAfter: string | undefined, random = Math.random()): number {
  const seconds = Number(retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : Number(DEFAULT_RETRY_AFTER_SECONDS)) * 1000 + Math.floor(random * OUTAGE_RETRY_SPREAD_MS);
}

/**
 * The realtime stream's answer when it cannot open because a dependency is unavailable (the
 * database that verifies the credential and holds the stream's lease): not 503, since
 * EventSource stops reconnecting for good after any answer other than 200 `text/event-stream`,
 * but a 200 stream (framed by better-sse) that carries only a `retry:` hint and ends at once, so
 * EventSource comes back after the outage on its own. The outage is reported as a refused
 * request (one warning per outage, as for a 503). Every other error (401, 402, 429) is answered
 * as on every route.
 */
@Catch()
@Injectable()
export class TodoEventsOutageFilter implements ExceptionFilter {
  private readonly fallback: AllExceptionsFilter;

  constructor(private readonly outages: DependencyOutages) {
    this.fallback = new AllExceptionsFilter(outages);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const resolved = resolveError(exception, request);
    if (!isRetryableUnavailability(resolved.code) || response.headersSent) {
      this.fallback.catch(exception, host);
      return;
    }
    if (resolved.dependency) this.outages.refused(resolved.dependency, exception);
    const retry = outageRetryMs(resolved.headers?.['Retry-After']);
    void createSession(request, response, { retry, keepAlive: null, headers: { 'X-Accel-Buffering': 'no' } })
      .catch(() => undefined)
      .finally(() => response.end());
  }
}
