import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A request the server received, body decoded from Stripe's form encoding. */
export interface StripeTestRequest {
  method: string;
  path: string;
  body: Record<string, any>;
  idempotencyKey?: string;
  /** The W3C trace context the caller sent (an app with tracing on). */
  traceparent?: string;
}

/** A fault for the next matching request: an error answer, or no answer at all (the client times out). */
export type StripeFault = { kind: 'error'; status: number; type?: string; code?: string; message?: string } | { kind: 'hang' };

export interface TestSubscriptionOptions {
  status?: Stripe.Subscription.Status;
  cancelAtPeriodEnd?: boolean;
  currentPeriodEnd?: number;
  metadata?: Record<string, string>;
}

type StripeObject = Record<string, any>;

function newId(prefix: string): string {
  return `${prefix}_test_${randomBytes(12).toString('hex')}`;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Decodes `a[b][0][c]=v` form keys into nested objects and arrays, as Stripe's API does. */
export function decodeStripeForm(raw: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [fullKey, value] of new URLSearchParams(raw)) {
    const parts = fullKey.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node: any = root;
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      if (last) {
        node[part] = value;
        return;
      }
      const nextIsIndex = /^[0-9]+$/.test(parts[index + 1]);
      node[part] ??= nextIsIndex ? [] : {};
      node = node[part];
    });
  }
  return root;
}

/**
 * A small Stripe-compatible HTTP server on 127.0.0.1 for end-to-end tests. It answers only
 * what the billing module calls (customers create/retrieve/delete, checkout sessions
 * create/list/expire, billing portal sessions, subscriptions retrieve/update/cancel), keeps its
 * objects in memory (a deleted customer is kept marked `deleted`, its subscriptions canceled, as
 * Stripe does; an expired session cannot be paid), honours
 * Idempotency-Key, records every request, and can inject faults (error statuses, hangs).
 * Tests also use it to play Stripe's side: create the subscription a checkout would create,
 * change it, and build signed webhook deliveries.
 */
export class StripeTestServer {
  readonly requests: StripeTestRequest[] = [];
  readonly customers = new Map<string, StripeObject>();
  readonly subscriptions = new Map<string, StripeObject>();
  readonly checkoutSessions = new Map<string, StripeObject>();
  url = '';
  private server?: Server;
  private readonly faults: Array<{ match: RegExp; fault: StripeFault }> = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly idempotent = new Map<string, { status: number; body: string }>();
  /** Used only for its offline webhook signing helpers. */
  private readonly signer = new Stripe('sk_test_signer', { telemetry: false });

  /**
   * The billing settings of an app that talks to this server (after start): a test key and price
   * named after the test, a fresh webhook secret; `extra` adds or overrides (STRIPE_TIMEOUT_MS...).
   */
  appEnv(name: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: `sk_test_${name}`,
      STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(12).toString('hex')}`,
      STRIPE_PRICE_ID: `price_${name}`,
      STRIPE_API_BASE: this.url,
      ...extra,
    };
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The next request whose `METHOD /path` matches gets `fault` instead of its answer (once per call). */
  injectFault(match: RegExp, fault: StripeFault): void {
    this.faults.push({ match, fault });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  requestsTo(method: string, pathPattern: RegExp): StripeTestRequest[] {
    return this.requests.filter((request) => request.method === method && pathPattern.test(request.path));
  }

  /** Plays a completed checkout: a subscription for the session's customer, and the session marked complete. */
  completeCheckout(sessionId: string, options: TestSubscriptionOptions = {}): { session: StripeObject; subscription: StripeObject } {
    const session = this.checkoutSessions.get(sessionId);
    if (!session) throw new Error(`No checkout session ${sessionId}`);
    // Stripe's payment page refuses an expired session, and a deleted customer cannot pay.
    if (session.status !== 'open') throw new Error(`Checkout session ${sessionId} is ${session.status}: it cannot be paid`);
    if (this.customers.get(session.customer)?.deleted) throw new Error(`The customer of checkout session ${sessionId} was deleted`);
    const subscription = this.createSubscription(session.customer, {
      ...options,
      metadata: { ...(session.subscription_data?.metadata ?? {}), ...(options.metadata ?? {}) },
    });
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription.id });
    return { session, subscription };
  }

  createSubscription(customerId: string, options: TestSubscriptionOptions = {}): StripeObject {
    const id = newId('sub');
    const created = nowSeconds();
    const periodEnd = options.currentPeriodEnd ?? created + 30 * 24 * 3600;
    const subscription: StripeObject = {
      id,
      object: 'subscription',
      customer: customerId,
      status: options.status ?? 'active',
      cancel_at_period_end: options.cancelAtPeriodEnd ?? false,
      canceled_at: null,
      created,
      metadata: options.metadata ?? {},
      items: {
        object: 'list',
        data: [{ id: newId('si'), object: 'subscription_item', current_period_start: created, current_period_end: periodEnd, price: { id: 'price_test' } }],
      },
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  /** Changes a subscription as Stripe would (renewal, failed payment, cancellation...). */
  updateSubscription(id: string, changes: { status?: string; cancelAtPeriodEnd?: boolean; currentPeriodEnd?: number }): StripeObject {
    const subscription = this.subscriptions.get(id);
    if (!subscription) throw new Error(`No subscription ${id}`);
    if (changes.status !== undefined) subscription.status = changes.status;
    if (changes.cancelAtPeriodEnd !== undefined) subscription.cancel_at_period_end = changes.cancelAtPeriodEnd;
    if (changes.currentPeriodEnd !== undefined) subscription.items.data[0].current_period_end = changes.currentPeriodEnd;
    return structuredClone(subscription);
  }

  /** An event as Stripe would post it; `object` is copied as it is now. */
  event(type: string, object: StripeObject, overrides: { id?: string; created?: number } = {}): StripeObject {
    return {
      id: overrides.id ?? newId('evt'),
      object: 'event',
      type,
      created: overrides.created ?? nowSeconds(),
      livemode: false,
      api_version: '2026-10-28.endive',
      data: { object: structuredClone(object) },
    };
  }

  /** The body and Stripe-Signature header of a webhook delivery signed with `secret`. */
  signedDelivery(event: StripeObject | string, secret: string, timestamp?: number): { payload: string; signature: string } {
    const payload = typeof event === 'string' ? event : JSON.stringify(event);
    return { payload, signature: this.signer.webhooks.generateTestHeaderString({ payload, secret, timestamp }) };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://stripe.test');
    const method = request.method ?? 'GET';
    const body = method === 'GET' || method === 'DELETE' ? decodeStripeForm(url.search.slice(1)) : decodeStripeForm(raw);
    const idempotencyKey = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : undefined;
    const traceparent = typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined;
    this.requests.push({ method, path: url.pathname, body, idempotencyKey, ...(traceparent ? { traceparent } : {}) });

    const faultIndex = this.faults.findIndex((entry) => entry.match.test(`${method} ${url.pathname}`));
    if (faultIndex >= 0) {
      const [{ fault }] = this.faults.splice(faultIndex, 1);
      if (fault.kind === 'hang') {
        this.hanging.add(response);
        response.on('close', () => this.hanging.delete(response));
        return;
      }
      this.send(response, fault.status, {
        error: { type: fault.type ?? 'api_error', code: fault.code, message: fault.message ?? 'Injected failure' },
      });
      return;
    }
    if (!/^Bearer sk_/.test(String(request.headers.authorization ?? ''))) {
      this.send(response, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      return;
    }
    const cacheKey = idempotencyKey && method === 'POST' ? `${url.pathname} ${idempotencyKey}` : undefined;
    const cached = cacheKey ? this.idempotent.get(cacheKey) : undefined;
    if (cached) {
      response.writeHead(cached.status, { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' });
      response.end(cached.body);
      return;
    }
    const [status, answer] = this.route(method, url.pathname, body);
    const text = JSON.stringify(answer);
    if (cacheKey && status < 500) this.idempotent.set(cacheKey, { status, body: text });
    response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': newId('req') });
    response.end(text);
  }

  private route(method: string, path: string, body: Record<string, any>): [number, StripeObject] {
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: newId('cus'), object: 'customer', email: body.email ?? null, metadata: body.metadata ?? {}, created: nowSeconds() };
      this.customers.set(customer.id, customer);
      return [200, customer];
    }
    if (method === 'GET' && (match = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = this.customers.get(match[1]);
      if (customer?.deleted) return [200, { id: customer.id, object: 'customer', deleted: true }];
      return customer ? [200, customer] : this.missing('customer', match[1]);
    }
    if (method === 'DELETE' && (match = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = this.customers.get(match[1]);
      if (!customer || customer.deleted) return this.missing('customer', match[1]);
      customer.deleted = true;
      // Deleting a customer cancels its subscriptions at once.
      for (const subscription of this.subscriptions.values()) {
        if (subscription.customer === customer.id && subscription.status !== 'canceled') {
          Object.assign(subscription, { status: 'canceled', canceled_at: nowSeconds(), ended_at: nowSeconds() });
        }
      }
      return [200, { id: customer.id, object: 'customer', deleted: true }];
    }
    if (method === 'GET' && path === '/v1/checkout/sessions') {
      const data = [...this.checkoutSessions.values()].filter(
        (session) => (!body.customer || session.customer === body.customer) && (!body.status || session.status === body.status),
      );
      return [200, { object: 'list', url: '/v1/checkout/sessions', has_more: false, data }];
    }
    if (method === 'POST' && (match = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path))) {
      const session = this.checkoutSessions.get(match[1]);
      if (!session) return this.missing('checkout.session', match[1]);
      if (session.status !== 'open') {
        return [400, { error: { type: 'invalid_request_error', message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".` } }];
      }
      Object.assign(session, { status: 'expired', url: null });
      return [200, session];
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (!body.customer || !this.customers.has(body.customer) || this.customers.get(body.customer)!.deleted) return this.missing('customer', body.customer);
      if (!body.success_url || !body.cancel_url) return [400, { error: { type: 'invalid_request_error', message: 'Missing success_url or cancel_url' } }];
      const id = newId('cs');
      const session = {
        id,
        object: 'checkout.session',
        mode: body.mode,
        status: 'open',
        payment_status: 'unpaid',
        customer: body.customer,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        subscription_data: body.subscription_data ?? {},
        line_items: body.line_items,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        subscription: null,
        url: `https://checkout.stripe.test/c/pay/${id}`,
        created: nowSeconds(),
      };
      this.checkoutSessions.set(id, session);
      return [200, session];
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!body.customer || !this.customers.has(body.customer)) return this.missing('customer', body.customer);
      const id = newId('bps');
      return [200, { id, object: 'billing_portal.session', customer: body.customer, return_url: body.return_url ?? null, url: `https://billing.stripe.test/p/session/${id}`, created: nowSeconds() }];
    }
    if ((match = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const subscription = this.subscriptions.get(match[1]);
      if (!subscription) return this.missing('subscription', match[1]);
      if (method === 'GET') return [200, subscription];
      if (method === 'POST') {
        if (subscription.status === 'canceled') {
          return [400, { error: { type: 'invalid_request_error', message: 'A canceled subscription can only update its metadata' } }];
        }
        if (body.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = body.cancel_at_period_end === 'true';
        if (body.metadata) subscription.metadata = { ...subscription.metadata, ...body.metadata };
        return [200, subscription];
      }
      if (method === 'DELETE') {
        Object.assign(subscription, { status: 'canceled', canceled_at: nowSeconds(), ended_at: nowSeconds() });
        return [200, subscription];
      }
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
  }

  private missing(kind: string, id: unknown): [number, StripeObject] {
    return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such ${kind}: '${String(id)}'` } }];
  }

  private send(response: ServerResponse, status: number, body: StripeObject): void {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  }
}
