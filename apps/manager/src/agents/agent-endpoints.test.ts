// Each agent response says where to reach the agent over AG-UI, MCP and A2A: under its engine_url,
// whichever placement serves it, on create, get, list and PATCH, and following the agent when it moves.
import { type TAgent, ZAgent, ZAgentListItem } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  addToWorkspace,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';

const [A, B] = [uniquePoolName('a'), uniquePoolName('b')];
const URL_OF = { [A]: 'http://127.0.0.1:8101', [B]: 'https://pools.example.com/b' } as Record<string, string>;

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  // A trailing slash on a pool's URL, as an operator may write it, makes no double slash.
  ctx = await startManagerTestApp({ ENGINE_POOLS: `${A}=${URL_OF[A]}/,${B}=${URL_OF[B]}`, DEFAULT_ENGINE_POOL: A });
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

async function create(overrides: Record<string, unknown> = {}): Promise<TAgent> {
  const response = await owner.agent.post('/api/v1/agents/').send(agentBody({}, overrides));
  if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`);
  return ZAgent.parse(response.body);
}

function patch(agent: TAgent, overrides: Record<string, unknown>) {
  return owner.agent.patch(`/api/v1/agents/${agent.id}`).send(agentBody({}, { name: agent.name, ...overrides }));
}

/** The agent as GET /agents/{id} and the list (with and without its engine_config) show it. */
async function readBack(user: SignedInUser, agentId: string) {
  const one = ZAgent.parse((await user.agent.get(`/api/v1/agents/${agentId}`)).body);
  const inList = async (query: string) => {
    const page = await user.agent.get(`/api/v1/agents/?limit=200${query}`);
    const item = page.body.find((listed: { id: string }) => listed.id === agentId);
    return ZAgentListItem.parse(item);
  };
  return [one, await inList(''), await inList('&include=engine_config')];
}

function endpointsUnder(base: string) {
  return {
    ag_ui: `${base}/agent/run`,
    mcp: `${base}/mcp`,
    a2a: `${base}/a2a`,
    agent_card: `${base}/.well-known/agent-card.json`,
  };
}

describe("an agent's endpoints", () => {
  it("of a pooled agent are under its pool's URL, on create, get and list, for a viewer too", async () => {
    const agent = await create();
    const expected = endpointsUnder(`http://127.0.0.1:8101/agents/${agent.id}`);
    expect(agent.endpoints).toEqual(expected);
    for (const read of await readBack(owner, agent.id)) expect(read.endpoints).toEqual(expected);

    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const asViewer = await viewer.agent.get(`/api/v1/agents/${agent.id}`).set('x-workspace-id', owner.workspaceId);
    expect(asViewer.body.endpoints).toEqual(expected);
  });

  it('of a dedicated agent are under the engine_url it is given, and null while it has none', async () => {
    const agent = await create({
      deployment: { mode: 'dedicated' },
      engine_url: 'https://engine.example.com/support/',
    });
    const expected = endpointsUnder('https://engine.example.com/support');
    expect(agent.endpoints).toEqual(expected);
    for (const read of await readBack(owner, agent.id)) expect(read.endpoints).toEqual(expected);

    const bare = await create({ deployment: { mode: 'dedicated' } });
    expect(bare.engine_url).toBeNull();
    expect(bare.endpoints).toBeNull();
    for (const read of await readBack(owner, bare.id)) expect(read.endpoints).toBeNull();
  });

  it('follow the agent when a PATCH moves it: to another pool, to a dedicated engine, and back', async () => {
    const agent = await create({ deployment: { mode: 'pool', pool: A } });

    const toB = await patch(agent, { deployment: { mode: 'pool', pool: B } });
    expect(toB.status).toBe(200);
    expect(toB.body.endpoints).toEqual(endpointsUnder(`https://pools.example.com/b/agents/${agent.id}`));

    const dedicated = await patch(agent, { deployment: { mode: 'dedicated' }, engine_url: 'http://127.0.0.1:8001' });
    expect(dedicated.body.endpoints).toEqual(endpointsUnder('http://127.0.0.1:8001'));
    for (const read of await readBack(owner, agent.id)) expect(read.endpoints).toEqual(dedicated.body.endpoints);

    const unset = await patch(agent, { deployment: { mode: 'dedicated' } });
    expect(unset.body.endpoints).toBeNull();

    const back = await patch(agent, { deployment: { mode: 'pool', pool: A } });
    expect(back.body.endpoints).toEqual(endpointsUnder(`http://127.0.0.1:8101/agents/${agent.id}`));
    for (const read of await readBack(owner, agent.id)) expect(read.endpoints).toEqual(back.body.endpoints);
  });
});
