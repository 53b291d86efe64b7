// The webhook URL each of the agent's integrations gives its provider (Slack's Event Subscriptions, a
// Telegram setWebhook, a Discord Interactions Endpoint, a Teams bot's messaging endpoint, a Chat app's
// HTTP endpoint, WhatsApp's callback URL), under the agent's engine_url.
import { integrationWebhookUrl, type TIntegrationProvider } from '@agentplane/contracts';
import { useQueries } from '@tanstack/react-query';
import { api, expectOk } from '../../api/api-client';
import { problemOf } from '../../api/api-problem';
import { providerLabel } from '../../resources/integrations/provider-labels';
import { ProblemAlert } from '../../ui/problem-alert';
import { UrlTable } from '../../ui/url-table';

// Cached as the integration's own page caches its masked read, so either fills the other.
const integrationQuery = (id: string) => ({
  queryKey: ['integrations', id, false],
  queryFn: () =>
    expectOk(api.GET('/api/v1/integrations/{id}', { params: { path: { id }, query: { secrets: 'masked' } } })),
});

export function ChannelWebhooks({ engineUrl, integrationIds }: { engineUrl: string; integrationIds: string[] }) {
  const reads = useQueries({ queries: integrationIds.map(integrationQuery) });
  if (integrationIds.length === 0) return null;
  const failed = reads.find((read) => read.error);
  const rows = reads.flatMap(({ data }) => {
    if (!data) return [];
    const { provider } = data.integration as { provider: TIntegrationProvider };
    return [
      {
        key: data.id,
        label: `${data.name} (${providerLabel(provider)})`,
        url: integrationWebhookUrl(engineUrl, { id: data.id, provider }),
        what: `webhook URL of ${data.name}`,
      },
    ];
  });
  return (
    <>
      <h3>Channel webhooks</h3>
      <p>Give each provider the webhook URL of its integration, so that its messages reach this agent.</p>
      {failed && <ProblemAlert problem={problemOf(failed.error)} />}
      <UrlTable caption="Channel webhooks" labelHeader="Integration" urlHeader="Webhook URL" rows={rows} />
    </>
  );
}
