// How to reach the agent from outside the console: its AG-UI, MCP and A2A endpoints, the route that
// mints a token for them, snippets for an MCP client and an A2A peer, and the webhook URL each of its
// integrations gives its provider, each with a copy button.
import type { TAgentEndpoints } from '@agentplane/contracts';
import { CopyButton } from '../../ui/copy-button';
import { UrlTable } from '../../ui/url-table';
import { useAgentOfPage } from '../agent-of-page';
import { a2aCurl, mcpClientConfig, shellQuoted, tokenCurl } from '../connect-snippets';
import { ChannelWebhooks } from './channel-webhooks';

const PROTOCOLS: readonly { key: keyof TAgentEndpoints; label: string; what: string }[] = [
  { key: 'ag_ui', label: 'AG-UI', what: 'AG-UI endpoint' },
  { key: 'mcp', label: 'MCP', what: 'MCP endpoint' },
  { key: 'a2a', label: 'A2A', what: 'A2A endpoint' },
  { key: 'agent_card', label: 'A2A agent card', what: 'agent card URL' },
];

function Snippet({ title, text, what }: { title: string; text: string; what: string }) {
  return (
    <>
      <h3>{title}</h3>
      <pre>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} what={what} />
    </>
  );
}

export function ConnectTab() {
  const agent = useAgentOfPage();
  const { endpoints } = agent;
  return (
    <section aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect</h2>
      {endpoints === null ? (
        <p>No engine URL yet: give the agent one in its settings (or place it on a pool) to reach it.</p>
      ) : (
        <>
          <p>
            The agent answers three protocols. Each takes the same bearer tokens: one of the agent's SSO issuer, or one
            the manager mints for a member of this workspace. The agent card is public.
          </p>
          <UrlTable
            caption="Endpoints"
            labelHeader="Protocol"
            urlHeader="URL"
            rows={PROTOCOLS.map(({ key, label, what }) => ({ key, label, what, url: endpoints[key] }))}
          />
          <Snippet title="A token" what="token command" text={tokenCurl(window.location.origin, agent.id)} />
          <p className="note">
            With the session cookie of POST /api/v1/auth/login. The token is short-lived: mint another when it expires.
          </p>
          <Snippet title="MCP client config" what="MCP client config" text={mcpClientConfig({ ...agent, endpoints })} />
          <p className="note">
            A client that starts only local servers (Claude Desktop) reaches it through mcp-remote: npx mcp-remote{' '}
            {shellQuoted(endpoints.mcp)} --header 'Authorization: Bearer &lt;token&gt;'.
          </p>
          <Snippet title="A2A from a terminal" what="A2A command" text={a2aCurl({ ...agent, endpoints })} />
          {agent.engine_url && (
            <ChannelWebhooks engineUrl={agent.engine_url} integrationIds={agent.resources.integration_ids} />
          )}
        </>
      )}
    </section>
  );
}
