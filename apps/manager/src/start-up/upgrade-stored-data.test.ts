// Rows an older manager stored with a URL's query in plaintext (before queries were secrets) are sealed
// at start-up, read the same before and after, and a PATCH racing the pass keeps what it wrote.
import { mapMcpServerSecrets, type TMcpServerConfig } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox } from '@agentplane/db';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  addToWorkspace,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, createThroughApi, mcpServerBody, observabilityBody } from '../testing/resource-fixtures.js';
import { upgradeStoredData } from './upgrade-stored-data.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

/** As server.ts calls it. */
const upgrade = () => {
  const { current, previous } = ctx.config.secretsKey;
  return upgradeStoredData(ctx.database.prisma, {
    box: createSecretBox(current, previous),
    agentKeys: createAgentKeyring(current, previous),
    versionRetention: ctx.config.agentVersionRetention,
    prices: ctx.config.modelPrices,
    engineRoles: ctx.config.engines.roles,
    enginePools: ctx.config.engines.pools,
  });
};

const QUERY = {
  mcp: 'api_key=legacy-mcp-query-0123456789',
  model: 'key=legacy-model-query-0123456789',
  trace: 'token=legacy-trace-query-0123456789',
};
const URLS = {
  mcp: `https://mcp.example.com/mcp?${QUERY.mcp}`,
  model: `https://llm.example.com/v1?${QUERY.model}`,
  trace: `https://otel.example.com/v1/traces?${QUERY.trace}`,
};

type LegacyWorkspace = {
  owner: SignedInUser;
  viewer: SignedInUser;
  ids: { mcp: string; trace: string; agent: string };
};

/** Puts a URL back as an older manager stored it: the whole URL in plaintext, every other secret sealed. */
async function storeUrlInPlaintext(table: string, id: string, path: string[], url: string): Promise<void> {
  await ctx.database.prisma.$executeRawUnsafe(
    `UPDATE ${table} SET config = jsonb_set(config, $2::text[], to_jsonb($3::text)) WHERE id = $1::uuid`,
    id,
    path,
    url,
  );
}

async function makeLegacyWorkspace(): Promise<LegacyWorkspace> {
  const [owner, viewer] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app)]);
  await addToWorkspace(owner, viewer, 'viewer');
  const mcp = await createThroughApi(owner, '/api/v1/mcp-servers/', mcpServerBody({ url: URLS.mcp }));
  const trace = await createThroughApi(owner, '/api/v1/observability/', observabilityBody({ endpoint: URLS.trace }));
  const agent = await createThroughApi(
    owner,
    '/api/v1/agents/',
    agentBody(
      { mcp_server_ids: [mcp], observability_id: trace },
      { agent: { model: { provider: 'openai', name: 'gpt-4o-mini', baseUrl: URLS.model } } },
    ),
  );
  await storeUrlInPlaintext('mcp_servers', mcp, ['url'], URLS.mcp);
  await storeUrlInPlaintext('observability_configs', trace, ['endpoint'], URLS.trace);
  await storeUrlInPlaintext('agents', agent, ['model', 'baseUrl'], URLS.model);
  return { owner, viewer, ids: { mcp, trace, agent } };
}

async function readStoredConfigs({ ids }: LegacyWorkspace): Promise<string[]> {
  const rows = await ctx.database.prisma.$queryRaw<{ text: string }[]>`
    SELECT config::text AS text FROM mcp_servers WHERE id = ${ids.mcp}::uuid
    UNION ALL SELECT config::text FROM observability_configs WHERE id = ${ids.trace}::uuid
    UNION ALL SELECT config::text FROM agents WHERE id = ${ids.agent}::uuid`;
  return rows.map((row) => row.text);
}

/** What `user` reads of each resource through the API: the bodies, and the URLs in them. */
async function readAs(user: SignedInUser, ws: LegacyWorkspace) {
  const get = async (path: string): Promise<unknown> => {
    const response = await user.agent.get(path).set('x-workspace-id', ws.owner.workspaceId);
    expect(response.status).toBe(200);
    return response.body;
  };
  const mcp = (await get(`/api/v1/mcp-servers/${ws.ids.mcp}`)) as { mcp_server: { url: string } };
  const trace = (await get(`/api/v1/observability/${ws.ids.trace}`)) as { observability: { endpoint: string } };
  const agent = (await get(`/api/v1/agents/${ws.ids.agent}`)) as { agent: { model: { baseUrl: string } } };
  return {
    bodies: [mcp, trace, agent],
    urls: [mcp.mcp_server.url, trace.observability.endpoint, agent.agent.model.baseUrl],
  };
}

describe('rows stored before URL queries were secrets', () => {
  it('are sealed at start-up, read the same before and after, and a second start changes nothing', async () => {
    const ws = await makeLegacyWorkspace();
    // The setup is what an older manager left: the queries readable in the rows.
    const legacy = await readStoredConfigs(ws);
    expect(legacy[0]).toContain(QUERY.mcp);
    expect(legacy[1]).toContain(QUERY.trace);
    expect(legacy[2]).toContain(QUERY.model);
    const [owner, viewer] = [await readAs(ws.owner, ws), await readAs(ws.viewer, ws)];
    expect(owner.urls).toEqual([URLS.mcp, URLS.trace, URLS.model]);
    expect(viewer.urls).toEqual([
      'https://mcp.example.com/mcp?••••••••6789',
      'https://otel.example.com/v1/traces?••••••••6789',
      'https://llm.example.com/v1?••••••••6789',
    ]);

    expect((await upgrade()).sealed).toBe(3);

    const sealed = await readStoredConfigs(ws);
    for (const text of sealed) {
      for (const query of Object.values(QUERY)) expect(text).not.toContain(query);
      expect(text).toMatch(/\?enc:v1:/);
    }
    expect(await readAs(ws.owner, ws)).toEqual(owner);
    expect(await readAs(ws.viewer, ws)).toEqual(viewer);

    expect((await upgrade()).sealed).toBe(0);
    expect(await readStoredConfigs(ws)).toEqual(sealed);
  });

  it('leaves a row that a PATCH rewrites meanwhile as the PATCH wrote it', async () => {
    const ws = await makeLegacyWorkspace();
    const patchedUrl = 'https://mcp.example.com/mcp?api_key=patched-query-0123456789';
    const box = createSecretBox(ctx.config.secretsKey.current);
    const stored = await ctx.database.prisma.mcpServer.findUniqueOrThrow({ where: { id: ws.ids.mcp } });
    const opened = mapMcpServerSecrets(stored.config as TMcpServerConfig, box.open);
    const patched = mapMcpServerSecrets({ ...opened, url: patchedUrl }, box.seal);
    // A PATCH's transaction, as updateResource writes: the row locked and rewritten, not yet committed.
    const patch = await ctx.database.connectClient();
    try {
      await patch.query('BEGIN');
      await patch.query('UPDATE mcp_servers SET config = $2::jsonb WHERE id = $1::uuid', [
        ws.ids.mcp,
        JSON.stringify(patched),
      ]);
      const upgrading = upgrade();
      await waitUntil(
        async () => {
          const [waiting] = await ctx.database.prisma.$queryRaw<{ count: number }[]>`
            SELECT count(*)::int AS count FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE mcp_servers %'`;
          return (waiting?.count ?? 0) > 0;
        },
        { what: "the start-up pass waiting on the PATCH's row lock" },
      );
      await patch.query('COMMIT');
      await upgrading;
    } finally {
      await patch.end();
    }
    const read = await ws.owner.agent.get(`/api/v1/mcp-servers/${ws.ids.mcp}`);
    expect(read.body.mcp_server.url).toBe(patchedUrl);
    // The pass went on past the row it left: the trace endpoint and the model's baseUrl are sealed.
    for (const text of (await readStoredConfigs(ws)).slice(1)) expect(text).toMatch(/\?enc:v1:/);
  });
});
