import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration } from 'prom-client';

/** Label of requests no route matched (404s, 405s): one series for all of them, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Request latency buckets (seconds): from a cached read to a slow export or a Stripe call. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteSeries {
  labels: { method: string; route: string; status: string };
  /** Requests answered; added to the counter when scraped (a plain increment per request, not a labelled one). */
  answered: number;
  counted: number;
  duration: { observe(value: number): void };
}

/**
 * One app's Prometheus registry and its HTTP metrics. Each app owns one (two apps in one
 * process keep separate series); features add their own metrics through `counter`,
 * `gauge` and `histogram`, which return the existing metric when one of that name is
 * already registered.
 */
export class AppMetrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** route -> method -> status -> bound series: no label hashing or object per request. */
  private readonly series = new Map<string, Map<string, Map<number, RouteSeries>>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const pending = () => this.uncountedRequests();
    this.httpRequests = this.counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      collect() {
        for (const [labels, count] of pending()) this.inc(labels, count);
      },
    });
    this.httpDuration = this.histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to the end of its response, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_DURATION_BUCKETS,
    });
  }

  counter<L extends string>(configuration: CounterConfiguration<L>): Counter<L> {
    return (this.registry.getSingleMetric(configuration.name) as Counter<L> | undefined) ?? new Counter({ ...configuration, registers: [this.registry] });
  }

  gauge<L extends string>(configuration: GaugeConfiguration<L>): Gauge<L> {
    return (this.registry.getSingleMetric(configuration.name) as Gauge<L> | undefined) ?? new Gauge({ ...configuration, registers: [this.registry] });
  }

  histogram<L extends string>(configuration: HistogramConfiguration<L>): Histogram<L> {
    return (this.registry.getSingleMetric(configuration.name) as Histogram<L> | undefined) ?? new Histogram({ ...configuration, registers: [this.registry] });
  }

  /** One answered request; `route` is the route template (never the path) or UNMATCHED_ROUTE. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { labels, answered: 0, counted: 0, duration: this.httpDuration.labels(labels) };
      byStatus.set(status, series);
    }
    series.answered++;
    series.duration.observe(seconds);
  }

  /** Requests answered since the last scrape, per series (and marks them counted). */
  private *uncountedRequests(): Generator<[RouteSeries['labels'], number]> {
    for (const byMethod of this.series.values()) {
      for (const byStatus of byMethod.values()) {
        for (const series of byStatus.values()) {
          const count = series.answered - series.counted;
          series.counted = series.answered;
          if (count > 0) yield [series.labels, count];
        }
      }
    }
  }

  /** The text exposition format. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
