/**
 * Strings that make a backtracking pattern work super-linearly: a prefix the pattern accepts,
 * one character (or pair) repeated to the size limit, and an ending the pattern refuses, so every
 * way of splitting the repeated run is tried before the refusal (`"http://" + "a"×80,000 + " "`
 * took 10.9 s against the old pageUrl pattern). Prefixes are cut from valid examples of the field
 * (its OpenAPI example, a sample of its format, strings its pattern matches) at each punctuation
 * mark, where a pattern usually moves from one part to the next.
 */

/** Valid samples per OpenAPI / JSON Schema format, to cut prefixes from when a field has no example. */
const FORMAT_SAMPLES: Record<string, string> = {
  email: 'ada.lovelace@example.com',
  uri: 'https://example.com/path?q=1#top',
  url: 'https://example.com/path?q=1#top',
  'date-time': '2027-01-31T12:00:00.123Z',
  uuid: '0b0e8f4e-5c6d-4e7f-8a9b-0c1d2e3f4a5b',
};

/** Samples cut for every field: the shapes request data most often has (URL, address, token, date, words). */
const GENERIC_SAMPLES = ['http://example.com/a', 'a@b.co', 'eyJhbGciOi.eyJzdWIi.c2ln', '2027-01-31T12:00:00Z', 'a b-c_d.e'];

/** Repeated runs and the ending that refuses each. */
const PUMPS: { pump: string; ending: string }[] = [
  { pump: 'a', ending: ' ' },
  { pump: ' ', ending: '!' },
  { pump: 'a.', ending: ' ' },
  { pump: '0', ending: 'x ' },
];

export interface PathologicalString {
  /** `prefix + pump×n + ending`, for reports. */
  label: string;
  value: string;
}

function prefixesOf(sample: string): string[] {
  const cuts = new Set<string>(['', sample]);
  for (let i = 0; i < sample.length; i++) if (/[^A-Za-z0-9]/.test(sample[i])) cuts.add(sample.slice(0, i + 1));
  return [...cuts];
}

/**
 * Pathological strings of exactly `length` UTF-16 units (ASCII: as many bytes) for a field with
 * these valid samples and format. `pumps` limits the repeated runs and `generic: false` leaves out the
 * generic samples (for callers that send each string over HTTP).
 */
export function pathologicalStrings(length: number, options: { samples?: unknown[]; format?: string; pumps?: number; generic?: boolean } = {}): PathologicalString[] {
  const generic = options.generic === false ? [] : GENERIC_SAMPLES;
  const samples = [...(options.samples ?? []), options.format ? FORMAT_SAMPLES[options.format] : undefined, ...generic].filter(
    (sample): sample is string => typeof sample === 'string' && sample.length > 0 && sample.length < 200,
  );
  const prefixes = [...new Set(samples.flatMap(prefixesOf))];
  const out: PathologicalString[] = [];
  const seen = new Set<string>();
  for (const { pump, ending } of PUMPS.slice(0, options.pumps ?? PUMPS.length)) {
    for (const prefix of prefixes) {
      const room = length - prefix.length - ending.length;
      if (room < pump.length) continue;
      const run = pump.repeat(Math.floor(room / pump.length)).padEnd(room, pump[0]);
      const value = `${prefix}${run}${ending}`;
      if (seen.has(value)) continue;
      seen.add(value);
      out.push({ label: `${JSON.stringify(prefix)} + ${JSON.stringify(pump)}×${Math.floor(room / pump.length)} + ${JSON.stringify(ending)}`, value });
    }
  }
  return out;
}

/** Largest request body both services accept (decisions.md: 413 beyond 1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;
