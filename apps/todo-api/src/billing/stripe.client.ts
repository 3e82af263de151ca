import { Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { AppException, ErrorCode, type AppMetrics } from '#libs/common';
import type { StripeConfig } from './billing.config.js';
import { measuredStripeHttpClient } from './stripe-metrics.js';

/** Injection token of the Stripe client; `null` when billing is not configured. */
export const STRIPE_CLIENT = Symbol('STRIPE_CLIENT');

/** The SDK once a client was created; before that no Stripe error can exist. */
let loadedSdk: typeof Stripe | undefined;

/** Seconds a client should wait before retrying when Stripe could not be reached. */
const PROVIDER_RETRY_AFTER_SECONDS = '30';

/**
 * The official SDK, pointed at STRIPE_API_BASE when set (a Stripe-compatible server in tests).
 * No automatic retries: a request either completes within the timeout or fails visibly.
 * Every request is measured (stripe_request_duration_seconds, stripe_request_failures_total).
 */
export async function createStripeClient(config: StripeConfig | undefined, metrics: AppMetrics): Promise<Stripe | null> {
  if (!config) return null;
  // Loaded only when billing is configured: the SDK is about 7 MB of heap an unconfigured app would carry idle.
  const { default: StripeSdk } = await import('stripe');
  loadedSdk = StripeSdk;
  const base = config.apiBase;
  return new StripeSdk(config.secretKey, {
    httpClient: measuredStripeHttpClient(metrics, StripeSdk),
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
  return loadedSdk !== undefined && error instanceof loadedSdk.errors.StripeError;
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
  if (!stripeError || stripeError instanceof loadedSdk!.errors.StripeConnectionError || stripeError instanceof loadedSdk!.errors.StripeRateLimitError) {
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
