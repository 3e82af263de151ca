import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry traces, made at our own chokepoints rather than by auto-instrumentation: the app's
 * HTTP middleware opens the server span (parent: the incoming `traceparent`), and the one database
 * executor, the Redis counter store and the outbound HTTP clients open child spans (`inSpanOf`,
 * `outgoingCall`, which also adds `traceparent` to what they send).
 *
 * Each app has its own tracer (its own `service.name` and exporter: two apps may share a process),
 * carried in the request's context: code below the middleware finds it there, so libs need no
 * injection and a statement outside a traced request (a background task) makes no span. With
 * OTEL_EXPORTER_OTLP_ENDPOINT unset nothing is set up: every helper answers after one check.
 */

/** Attribute names of OpenTelemetry's stable semantic conventions that our spans use. */
export const SpanAttributes = {
  serviceName: 'service.name',
  httpRequestMethod: 'http.request.method',
  httpResponseStatusCode: 'http.response.status_code',
  httpRoute: 'http.route',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  dbSystemName: 'db.system.name',
  dbOperationName: 'db.operation.name',
  dbQueryText: 'db.query.text',
} as const;

/** The context key under which a traced request carries its app's tracer. */
const APP_TRACER = createContextKey('app tracer');
/** W3C `traceparent`/`tracestate`; loaded with the SDK (set whenever tracingInProcess is). */
let propagator: W3CTraceContextPropagator;
/** Set once any app in the process traces: until then the helpers do not even read the context. */
let tracingInProcess = false;

const headerGetter = {
  get: (carrier: IncomingMessage['headers'], key: string) => carrier[key],
  keys: (carrier: IncomingMessage['headers']) => Object.keys(carrier),
};
const headerSetter = { set: (carrier: Record<string, string>, key: string, value: string) => (carrier[key] = value) };

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (spans go to `<endpoint>/v1/traces`); unset, tracing is off. */
  endpoint?: string;
  /** OTEL_SERVICE_NAME: the spans' `service.name`; else the app's own name. */
  serviceName?: string;
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between two exports of the finished spans. */
  exportDelayMs: number;
}

type TracedRequest = IncomingMessage & { route?: { path?: unknown } };

/** One app's traces: its tracer and exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set, else nothing. */
export class AppTracing {
  private constructor(
    private readonly provider?: BasicTracerProvider,
    private readonly tracer?: Tracer,
  ) {}

  /** Loads the SDK and the exporter only when tracing is on: an app without it does not carry them (about 5 MB idle). */
  static async create(options: TracingOptions, service: string): Promise<AppTracing> {
    if (!options.endpoint) return new AppTracing();
    const [{ W3CTraceContextPropagator }, { AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor }] = await Promise.all([
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-base'),
    ]);
    if (!tracingInProcess) {
      // Process-wide and once: how a span stays the active one across awaits (AsyncLocalStorage).
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagator = new W3CTraceContextPropagator();
      tracingInProcess = true;
    }
    const url = new URL('v1/traces', options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`).href;
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [SpanAttributes.serviceName]: options.serviceName ?? service }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: options.exportDelayMs })],
    });
    return new AppTracing(provider, provider.getTracer(service));
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * The HTTP middleware (first of the app's): the request runs in its server span, a child of the
   * incoming `traceparent` when there is one. Named and labelled by the route template once
   * Express matched it; the path itself (which may hold a credential) is never recorded.
   */
  middleware(): ((request: TracedRequest, response: ServerResponse, next: () => void) => void) | undefined {
    const tracer = this.tracer;
    if (!tracer) return undefined;
    return (request, response, next) => {
      const parent = propagator.extract(context.active(), request.headers, headerGetter);
      const method = request.method ?? 'GET';
      const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { [SpanAttributes.httpRequestMethod]: method } }, parent);
      response.once('close', () => {
        const route = request.route?.path;
        if (typeof route === 'string') span.setAttribute(SpanAttributes.httpRoute, route).updateName(`${method} ${route}`);
        span.setAttribute(SpanAttributes.httpResponseStatusCode, response.statusCode);
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      const traced = trace.setSpan(parent, span).setValue(APP_TRACER, tracer);
      // Listeners added later (the body parser's 'data' and 'end') run in the request's context, not the socket's.
      context.bind(traced, request);
      context.with(traced, next);
    };
  }

  /** Exports what is still buffered (tests; the app's close does it too). */
  async flush(): Promise<void> {
    await this.provider?.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }

  /** Nest's hook when the app closes: the last spans are exported. */
  onApplicationShutdown(): Promise<void> {
    return this.shutdown();
  }
}

/** The tracer of the traced request this code runs in; undefined when tracing is off or outside a traced request. */
export function activeTracer(): Tracer | undefined {
  return tracingInProcess ? (context.active().getValue(APP_TRACER) as Tracer | undefined) : undefined;
}

/**
 * Runs `work` in a child span of the active one (a database statement, a Redis command, an
 * outgoing call), ended when it settles, an error recorded. The caller checks `activeTracer()`
 * first and runs `work` as it is when that answers nothing (tracing off, or outside a traced request).
 */
export function inSpanOf<T>(tracer: Tracer, name: string, kind: SpanKind, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, (span) => settle(span, work()));
}

async function settle<T>(span: Span, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * An outgoing HTTP call (Stripe, a client's metadata document, the bot-check verifier, a webhook)
 * in a client span, `traceparent` added to `headers` (mutated) so the other side joins the trace.
 * Records the method and the server's host and port, never the path or query (they may hold ids or secrets).
 */
export function outgoingCall<T>(method: string, host: string, port: number, headers: Record<string, string>, send: () => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return send();
  const attributes = { [SpanAttributes.httpRequestMethod]: method, [SpanAttributes.serverAddress]: host, [SpanAttributes.serverPort]: port };
  return inSpanOf(tracer, method, SpanKind.CLIENT, attributes, () => {
    propagator.inject(context.active(), headers, headerSetter);
    return send();
  });
}

/** `trace_id` and `span_id` of the active span, for a log line; undefined outside a traced request. */
export function traceLogFields(active: Context | undefined = tracingInProcess ? context.active() : undefined): { trace_id: string; span_id: string } | undefined {
  if (!active?.getValue(APP_TRACER)) return undefined;
  const spanContext = trace.getSpanContext(active);
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
}

export { SpanKind };
