import type { RateLimitOptions } from '#libs/common';

/** The three budgets of an app's webhook routes, one set of figures for both apps. */
export interface WebhookRateLimits {
  /** Create, change, delete, rotate: a person's or a deploy script's pace. */
  manage: RateLimitOptions;
  /** Test events and replays: each one is an outbound request to the endpoint. */
  send: RateLimitOptions;
  /** Reading endpoints and deliveries. */
  read: RateLimitOptions;
}

/** The budgets under the app's own bucket names (`<prefix>-manage`, `-send`, `-read`), as the README lists them. */
export function webhookRateLimits(bucketPrefix: string): WebhookRateLimits {
  return {
    manage: { bucket: `${bucketPrefix}-manage`, limit: 60, windowSeconds: 3600, storeOutage: 'fail-closed' },
    send: { bucket: `${bucketPrefix}-send`, limit: 30, windowSeconds: 60, storeOutage: 'fail-closed' },
    read: { bucket: `${bucketPrefix}-read`, limit: 300, windowSeconds: 60, storeOutage: 'fail-open' },
  };
}
