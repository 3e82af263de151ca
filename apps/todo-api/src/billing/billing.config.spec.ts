import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { loadBillingConfig } from './billing.config.js';

// Moved from libs/config's app-config.spec.ts with the variables: the same assertions on todo-api's own settings.
const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40) };

describe('loadBillingConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadBillingConfig(base);
    expect(config.stripe).toBeUndefined();
    expect(config.adminApiKey).toBeUndefined();
  });

  it.each([
    ['STRIPE_API_BASE', 'ftp://stripe'],
    ['ADMIN_API_KEY', 'short'],
  ])('refuses a bad %s and names it', (variable, value) => {
    expect(() => loadBillingConfig({ ...base, [variable]: value })).toThrow(ConfigError);
    expect(() => loadBillingConfig({ ...base, [variable]: value })).toThrow(variable);
  });

  it('enables billing only when all three Stripe variables are set', () => {
    expect(loadBillingConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).stripe).toBeUndefined();
    expect(loadBillingConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_ID: 'price_1' }).stripe?.priceId).toBe('price_1');
  });
});
