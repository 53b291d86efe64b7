// Under load, the requests that arrive in one turn of the event loop each want a row of the same
// kind; one query for all of them is one round trip instead of several. Nothing is cached, so each
// request still reads the database as it is when the request is served.
import DataLoader from 'dataloader';

const MAX_BATCH = 200;

export function perTurnLoader<K, V>(load: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  return new DataLoader<K, V>(load, {
    cache: false,
    batchScheduleFn: (run) => setImmediate(run),
    maxBatchSize: MAX_BATCH,
  });
}
