import { SECRET_MAX_LENGTH, ZEngineConfig } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ManagerTestContext, signUpUser, startManagerTestApp } from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody, observabilityBody, whatsappBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

async function rawRowsText(table: string): Promise<string> {
  const rows = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM ${table}`);
  return JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
}

describe('secrets at rest', () => {
  it('never stores a plaintext secret in the resource rows or the published engine configs', async () => {
    const user = await signUpUser(ctx.app);
    const integration = await user.agent.post('/api/v1/integrations/').send(
      whatsappBody({
        config: {
          accessToken: 'plain-access-token-1',
          phoneNumberId: '1065550123',
          verifyToken: 'plain-verify-token-2',
          appSecret: 'plain-app-secret-3',
        },
      }),
    );
    const mcp = await user.agent
      .post('/api/v1/mcp-servers/')
      .send(mcpServerBody({ headers: { 'X-Api-Key': 'plain-header-4' }, env: { TOKEN: 'plain-env-5' } }));
    const otlp = await user.agent
      .post('/api/v1/observability/')
      .send(observabilityBody({ headers: { 'X-Otlp-Key': 'plain-otlp-header-6' } }));
    const langfuse = await user.agent.post('/api/v1/observability/').send({
      name: 'langfuse',
      observability: {
        provider: 'LANGFUSE',
        host: 'https://cloud.langfuse.com',
        public_key: 'pk-lf-public',
        secret_key: 'plain-langfuse-secret-7',
      },
    });
    expect([otlp.status, langfuse.status]).toEqual([201, 201]);
    const agent = await user.agent.post('/api/v1/agents/').send(
      agentBody({
        integration_ids: [integration.body.id],
        mcp_server_ids: [mcp.body.id],
        observability_id: otlp.body.id,
      }),
    );
    expect(agent.status).toBe(201);
    const agentOnLangfuse = await user.agent
      .post('/api/v1/agents/')
      .send(agentBody({ observability_id: langfuse.body.id }));
    expect(agentOnLangfuse.status).toBe(201);

    const stored = [
      await rawRowsText('integrations'),
      await rawRowsText('mcp_servers'),
      await rawRowsText('observability_configs'),
      await rawRowsText('engine_configs'),
    ].join('\n');
    for (const secret of [
      'plain-access-token-1',
      'plain-verify-token-2',
      'plain-app-secret-3',
      'plain-header-4',
      'plain-env-5',
      'plain-otlp-header-6',
      'plain-langfuse-secret-7',
    ]) {
      expect(stored).not.toContain(secret);
    }
    expect(stored).toContain('enc:v1:');
    // Names and non-secret values stay readable, so that the data can be inspected and queried.
    expect(stored).toContain('1065550123');
    expect(stored).toContain('X-Api-Key');
    expect(stored).toContain('X-Otlp-Key');
    expect(stored).toContain('pk-lf-public');

    // Members get the secrets back as strings, as the spec says.
    const read = await user.agent.get(`/api/v1/integrations/${integration.body.id}`);
    expect(read.body.integration.config).toMatchObject({
      accessToken: 'plain-access-token-1',
      appSecret: 'plain-app-secret-3',
    });
    const published = await user.agent.get(`/api/v1/agents/${agent.body.id}`);
    expect(published.body.engine_config.mcp_servers[0].env).toEqual({ TOKEN: 'plain-env-5' });
    expect(published.body.engine_config.observability.headers).toEqual({ 'X-Otlp-Key': 'plain-otlp-header-6' });
    const onLangfuse = await user.agent.get(`/api/v1/agents/${agentOnLangfuse.body.id}`);
    expect(onLangfuse.body.engine_config.observability.secret_key).toBe('plain-langfuse-secret-7');
    const langfuseRead = await user.agent.get(`/api/v1/observability/${langfuse.body.id}`);
    expect(langfuseRead.body.observability.secret_key).toBe('plain-langfuse-secret-7');
  });

  it("publishes a secret at the cap in a sealed form the engine's schema still accepts", async () => {
    const user = await signUpUser(ctx.app);
    // Three UTF-8 bytes per character: the longest sealed form a capped plaintext can have.
    const longest = '€'.repeat(SECRET_MAX_LENGTH);
    const mcp = await user.agent
      .post('/api/v1/mcp-servers/')
      .send(mcpServerBody({ headers: { 'X-Api-Key': longest } }));
    expect(mcp.status).toBe(201);
    const agent = await user.agent.post('/api/v1/agents/').send(agentBody({ mcp_server_ids: [mcp.body.id] }));
    expect(agent.status).toBe(201);
    const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId: agent.body.id } });
    const sealed = (row.config as { mcp_servers: { headers: Record<string, string> }[] }).mcp_servers[0]?.headers;
    expect(sealed?.['X-Api-Key']?.length).toBeGreaterThan(SECRET_MAX_LENGTH);
    expect(ZEngineConfig.safeParse(row.config).success).toBe(true);
  });
});
