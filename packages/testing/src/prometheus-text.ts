// A strict reader of the Prometheus text exposition format (0.0.4), for tests that scrape /metrics:
// every line must be a HELP, a TYPE or a sample of a family whose TYPE came first, or the scrape fails.

export type PrometheusSample = { name: string; labels: Record<string, string>; value: number };

const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${METRIC_NAME}) .*$`);
const TYPE_LINE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(`^(${METRIC_NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (match === null) throw new Error(`bad labels in: ${line}`);
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

// As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`).
function parseValue(text: string, line: string): number {
  const special = text.toLowerCase();
  if (special === 'nan') return Number.NaN;
  if (special === '+inf' || special === 'inf') return Number.POSITIVE_INFINITY;
  if (special === '-inf') return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`);
  return Number(text);
}

export function parsePrometheusText(text: string): PrometheusSample[] {
  const types = new Map<string, string>();
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || HELP_LINE.test(line)) continue;
    const type = TYPE_LINE.exec(line);
    if (type !== null) {
      if (types.has(type[1] as string)) throw new Error(`a second TYPE for ${type[1]}`);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = SAMPLE_LINE.exec(line);
    if (sample === null) throw new Error(`not a Prometheus text line: ${line}`);
    const name = sample[1] as string;
    const family = [...types].find(([base, kind]) =>
      (SUFFIXES[kind] ?? ['']).some((suffix) => `${base}${suffix}` === name),
    );
    if (family === undefined) throw new Error(`a sample before its TYPE: ${line}`);
    samples.push({ name, labels: parseLabels(sample[2] ?? '', line), value: parseValue(sample[3] as string, line) });
  }
  return samples;
}

/** GETs a /metrics URL and parses it; a non-200 or a malformed line throws. */
export async function scrapeMetrics(url: string): Promise<PrometheusSample[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(samples: PrometheusSample[], name: string, labels: Record<string, string> = {}): number {
  const matching = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}
