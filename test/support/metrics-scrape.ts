/** A Prometheus text exposition, read back for assertions. */
export class MetricsScrape {
  private readonly samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) continue;
      const labels: Record<string, string> = {};
      for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
      this.samples.push({ name: match[1], labels, value: Number(match[3]) });
    }
  }

  /** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples
      .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
      .reduce((sum, sample) => sum + sample.value, 0);
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.samples.some((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  }
}

export async function scrape(baseUrl: string, token: string): Promise<MetricsScrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return new MetricsScrape(await res.text());
}
