import autocannon from 'autocannon';

export type LoadResult = {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** How many of each status the load got, to say which went wrong. */
  statuses: Record<string, number>;
};

/** One request of a rotation: a path below the url's origin, with its own headers. */
export type Target = { path: string; headers: Record<string, string> };

/** What changes from one request to the next: the target in turn, a fresh body, or both. */
function varying(targets: Target[] | undefined, makeBody: (() => string) | undefined): autocannon.Request[] {
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const target = targets?.[next++ % targets.length];
        return {
          ...request,
          ...(target ? { path: target.path, headers: { ...request.headers, ...target.headers } } : {}),
          ...(makeBody ? { body: makeBody() } : {}),
        };
      },
    },
  ];
}

/** A bounded autocannon run against loopback. */
export async function runLoad(
  options: {
    url: string;
    method?: 'GET' | 'POST';
    /** A function makes a new body for every request. */
    body?: string | (() => string);
    headers?: Record<string, string>;
    /** Requests go to these in turn instead of to the url's own path. */
    targets?: Target[];
    connections: number;
  } & ({ durationSeconds: number } | { runs: number }),
): Promise<LoadResult> {
  const { body, targets } = options;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    ...(typeof body === 'string' ? { body } : {}),
    ...(targets || typeof body === 'function'
      ? { requests: varying(targets, typeof body === 'function' ? body : undefined) }
      : {}),
    headers: options.headers ?? {},
    connections: options.connections,
    ...('runs' in options ? { amount: options.runs } : { duration: options.durationSeconds }),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]),
    ),
  };
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** The middle value, or the mean of the two middle ones: over an even number of rounds, percentile(0.5) would take the upper one. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  if (sorted.length % 2 === 1) return sorted[Math.floor(middle)] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}
