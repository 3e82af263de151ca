import { Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { AppException, ErrorCode, type AppMetrics } from '#libs/common';
import type { StripeConfig } from '#libs/config';
import { measuredStripeHttpClient } from './stripe-metrics.js';

/** Injection token of the Stripe client; `null` when billing is not configured. */
export const STRIPE_CLIENT = Symbol('STRIPE_CLIENT');

/** Seconds a client should wait before retrying when Stripe could not be reached. */
const PROVIDER_RETRY_AFTER_SECONDS = '30';

/**
 * The official SDK, pointed at STRIPE_API_BASE when set (a Stripe-compatible server in tests).
 * No automatic retries: a request either completes within the timeout or fails visibly.
 * Every request is measured (stripe_request_duration_seconds, stripe_request_failures_total).
 */
export function createStripeClient(config: StripeConfig | undefined, metrics: AppMetrics): Stripe | null {
  if (!config) return null;
  const base = config.apiBase;
  return new Stripe(config.secretKey, {
    httpClient: measuredStripeHttpClient(metrics),
    telemetry: false,
    maxNetworkRetries: 0,
    timeout: config.timeoutMs,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

export function isStripeError(error: unknown): error is Stripe.errors.StripeError {
  return error instanceof Stripe.errors.StripeError;
}

/** A Stripe "no such object" answer (the object was deleted or never existed). */
export function isResourceMissing(error: unknown): boolean {
  return isStripeError(error) && error.statusCode === 404 && error.code === 'resource_missing';
}

const logger = new Logger('Stripe');

/**
 * Maps a failed Stripe call to a public error: no answer (connection refused, timeout) or a rate
 * limit is 503 SERVICE_UNAVAILABLE with Retry-After; any other refusal is 502
 * PAYMENT_PROVIDER_ERROR. Stripe's own message is logged, never sent.
 */
export function paymentProviderException(error: unknown, operation: string): AppException {
  if (error instanceof AppException) return error;
  const stripeError = isStripeError(error) ? error : undefined;
  logger.warn({ operation, type: stripeError?.type ?? (error as Error)?.name, status: stripeError?.statusCode, code: stripeError?.code, message: (error as Error)?.message }, 'Stripe call failed');
  if (!stripeError || stripeError instanceof Stripe.errors.StripeConnectionError || stripeError instanceof Stripe.errors.StripeRateLimitError) {
    return new AppException(ErrorCode.SERVICE_UNAVAILABLE, 'The payment provider could not be reached; retry later', undefined, {
      'Retry-After': PROVIDER_RETRY_AFTER_SECONDS,
    });
  }
  return new AppException(ErrorCode.PAYMENT_PROVIDER_ERROR, 'The payment provider refused or failed the request');
}

/** Runs one Stripe call, turning its failure into the public error. */
export async function callStripe<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw paymentProviderException(error, operation);
  }
}
