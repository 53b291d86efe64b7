// The webhook URL each of the agent's integrations gives its provider (Slack's Event Subscriptions, a
// Telegram setWebhook, a Discord Interactions Endpoint, a Teams bot's messaging endpoint, a Chat app's
// HTTP endpoint, WhatsApp's callback URL), under the agent's engine_url.
import { integrationWebhookUrl, type TIntegrationProvider } from '@agentplane/contracts';
import { useQueries } from '@tanstack/react-query';
import { api, expectOk } from '../../api/api-client';
import { problemOf } from '../../api/api-problem';
import { providerLabel } from '../../resources/integrations/provider-labels';
import { CopyButton } from '../../ui/copy-button';
import { ProblemAlert } from '../../ui/problem-alert';

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
  return (
    <>
      <h3 id="webhooks-heading">Channel webhooks</h3>
      <p>Give each provider the webhook URL of its integration, so that its messages reach this agent.</p>
      {failed && <ProblemAlert problem={problemOf(failed.error)} />}
      <table aria-labelledby="webhooks-heading">
        <thead>
          <tr>
            <th scope="col">Integration</th>
            <th scope="col">Webhook URL</th>
            <th scope="col">
              <span className="visually-hidden">Copy</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {reads.map(({ data }, index) => {
            if (!data) return null;
            const { provider } = data.integration as { provider: TIntegrationProvider };
            const url = integrationWebhookUrl(engineUrl, { id: data.id, provider });
            return (
              <tr key={integrationIds[index]}>
                <th scope="row">
                  {data.name} ({providerLabel(provider)})
                </th>
                <td>
                  <code>{url}</code>
                </td>
                <td>
                  <CopyButton text={url} what={`webhook URL of ${data.name}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
