import autocannon from 'autocannon';

export type LoadResult = { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number };

/** A bounded autocannon run against loopback. */
export async function runLoad(options: {
  url: string;
  method?: 'GET' | 'POST';
  /** A function makes a new body for every request. */
  body?: string | (() => string);
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}): Promise<LoadResult> {
  const { body } = options;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    ...(typeof body === 'function'
      ? { requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }] }
      : body === undefined
        ? {}
        : { body }),
    headers: options.headers ?? {},
    connections: options.connections,
    duration: options.durationSeconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}
