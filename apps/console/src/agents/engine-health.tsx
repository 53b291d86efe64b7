// The agent's engine as the browser sees it: its public /health (status and the config version it
// runs), beside the version the manager published, so a lagging or unreachable engine shows.
import { useQuery } from '@tanstack/react-query';
import { fetchFromEngine } from '../api/engine-fetch';

type Health = { status: string; config_version: number | null };

async function readHealth(engineUrl: string): Promise<Health> {
  const response = await fetchFromEngine(new URL('health', `${engineUrl.replace(/\/$/, '')}/`));
  const body = (await response.json()) as Partial<Health>;
  return { status: body.status ?? `HTTP ${response.status}`, config_version: body.config_version ?? null };
}

export function EngineHealth({ engineUrl, publishedVersion }: { engineUrl: string | null; publishedVersion: number }) {
  const health = useQuery({
    queryKey: ['engine-health', engineUrl],
    queryFn: () => readHealth(engineUrl ?? ''),
    enabled: engineUrl !== null,
    refetchInterval: 5_000,
    retry: false,
  });
  if (engineUrl === null) return <p>No engine URL: set one to use the playground.</p>;
  return (
    <section aria-label="Engine">
      <dl className="engine-health">
        <dt>Engine</dt>
        <dd>
          <a href={engineUrl}>{engineUrl}</a>
        </dd>
        <dt>Engine status</dt>
        <dd>{health.error ? `unreachable (${health.error.message})` : (health.data?.status ?? 'checking…')}</dd>
        <dt>Engine config version</dt>
        <dd>
          {health.data?.config_version ?? '—'}
          {health.data && health.data.config_version !== publishedVersion && ` (published: ${publishedVersion})`}
        </dd>
      </dl>
    </section>
  );
}
