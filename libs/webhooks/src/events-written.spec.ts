import { describe, expect, it } from '@jest/globals';
import { AppMetrics } from '#libs/common';
import { eventsWrittenCounter } from './events-written.js';

const VOCABULARY = { name: 'shop_events_written_total', help: 'Shop events written', eventTypes: ['order.placed', 'order.paid'] as const };

async function series(metrics: AppMetrics): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric(VOCABULARY.name)!.get();
  return Object.fromEntries(metric.values.map((sample) => [String(sample.labels.type), sample.value]));
}

describe('eventsWrittenCounter', () => {
  it('has a series per event type from the start, counts by type, and is one counter for every caller of an app', async () => {
    const metrics = new AppMetrics();
    const first = eventsWrittenCounter(metrics, VOCABULARY);
    expect(await series(metrics)).toEqual({ 'order.placed': 0, 'order.paid': 0 });
    first.written('order.placed');
    eventsWrittenCounter(metrics, VOCABULARY).written('order.placed', 3);
    first.written('order.paid', 0);
    expect(await series(metrics)).toEqual({ 'order.placed': 4, 'order.paid': 0 });
  });
});
