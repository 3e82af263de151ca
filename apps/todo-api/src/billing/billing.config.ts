import { ConfigError, readIntVariable, readUrlVariable, readVariable, type Env } from '#libs/config';

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  priceId: string;
  apiBase?: URL;
  /** How long one Stripe API call may take before it counts as failed (STRIPE_TIMEOUT_MS). */
  timeoutMs: number;
}

/** todo-api's own settings, which feedback-export never reads: the administrator key and Stripe. */
export interface BillingConfig {
  /** ADMIN_API_KEY; unset: the admin routes answer 401. */
  adminApiKey?: string;
  /** Set only when STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID all are; unset: billing answers 503. */
  stripe?: StripeConfig;
}

/** Injection token of the validated BillingConfig (provided by BillingConfigModule.forRoot). */
export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

/** Reads and validates todo-api's billing variables; a wrong one throws ConfigError, and the service does not start. */
export function loadBillingConfig(env: Env = process.env): BillingConfig {
  const adminApiKey = readVariable(env, 'ADMIN_API_KEY');
  if (adminApiKey !== undefined && adminApiKey.length < 16) throw new ConfigError('ADMIN_API_KEY', 'must be at least 16 characters');

  const stripeSecret = readVariable(env, 'STRIPE_SECRET_KEY');
  const stripeWebhook = readVariable(env, 'STRIPE_WEBHOOK_SECRET');
  const stripePrice = readVariable(env, 'STRIPE_PRICE_ID');
  const stripeBase = readUrlVariable(env, 'STRIPE_API_BASE', ['http:', 'https:']);
  const stripe =
    stripeSecret && stripeWebhook && stripePrice
      ? {
          secretKey: stripeSecret,
          webhookSecret: stripeWebhook,
          priceId: stripePrice,
          apiBase: stripeBase ? new URL(stripeBase) : undefined,
          timeoutMs: readIntVariable(env, 'STRIPE_TIMEOUT_MS', 10_000, 100, 60_000),
        }
      : undefined;

  return { adminApiKey, stripe };
}
