// The platform's total of engine connections: engine credentials are refused, with a 409 naming the
// settings, once the connection limits of the roles with credentials would pass it; by default half of
// the server's max_connections, so that one tenant's engines cannot take what another's or the
// manager need. Run with the defaults, as `pnpm start` runs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectProblemShape,
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let serverMax: number;
let operator: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_DB_CONNECTIONS_TOTAL: undefined });
  operator = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, operator);
  const [row] = await ctx.database.prisma.$queryRawUnsafe<{ n: number }[]>(
    "SELECT current_setting('max_connections')::int AS n",
  );
  serverMax = row?.n ?? 0;
});
afterAll(async () => {
  await ctx?.close();
});

async function createAgent(user: SignedInUser): Promise<string> {
  const response = await user.agent.post('/api/v1/agents/').send(agentBody());
  expect(response.status).toBe(201);
  return response.body.id;
}

const issue = (agentId: string) => operator.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);

describe('engine credentials against the total of engine connections', () => {
  it("are refused past half the server's connections, however many are asked for at once, and free again when an agent goes", async () => {
    const limit = ctx.config.engines.roles.connectionLimit;
    const room = Math.floor(Math.floor(serverMax / 2) / limit);
    // Agents of tenants of their own, their credentials all asked for at once: the total holds across
    // tenants and races.
    const users = await Promise.all(Array.from({ length: room + 2 }, () => signUpUser(ctx.app)));
    const agents = await Promise.all(users.map((user) => createAgent(user)));
    const responses = await Promise.all(agents.map((agentId) => issue(agentId)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(room);
    expect(statuses.filter((status) => status === 409)).toHaveLength(2);
    const refused = responses.find((response) => response.status === 409);
    expectProblemShape(refused as NonNullable<typeof refused>, 409);
    expect(refused?.body.detail).toMatch(/ENGINE_DB_CONNECTIONS_TOTAL/);
    const [given] = await ctx.database.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT COALESCE(sum(rolconnlimit), 0)::int AS n FROM pg_roles
       WHERE rolname LIKE 'agentplane\\_engine\\_%' AND rolcanlogin AND rolname = ANY($1::text[])`,
      agents.map((id) => `agentplane_engine_${id.replaceAll('-', '')}`),
    );
    expect(given?.n).toBeLessThanOrEqual(Math.floor(serverMax / 2));

    // A rotation of credentials already given takes no more; a deleted agent's share is free again.
    const holder = responses.findIndex((response) => response.status === 201);
    const waiting = responses.findIndex((response) => response.status === 409);
    expect((await issue(agents[holder] as string)).status).toBe(201);
    expect((await users[holder]?.agent.delete(`/api/v1/agents/${agents[holder]}`))?.status).toBe(204);
    expect((await issue(agents[waiting] as string)).status).toBe(201);
  });
});
