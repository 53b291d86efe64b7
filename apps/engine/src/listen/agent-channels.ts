// An agent's NOTIFY channels (engine_channels): random names that its own role alone may read, so that
// no other tenant's engine can listen to its news or send it wake-ups. Config changes come from the
// manager on the config channel; run news goes between the agent's engines on the run channel.
import { CHANNEL_NAME } from '@agentplane/db/engine-roles';
import type pg from 'pg';

export type ChannelKind = 'config' | 'runs';

const READ_CHANNEL: Record<ChannelKind, string> = {
  config: 'SELECT config_channel AS channel FROM engine_channels WHERE agent_id = $1',
  runs: 'SELECT run_channel AS channel FROM engine_channels WHERE agent_id = $1',
};

/** The agent's channel of `kind`; throws when its role has none (not provisioned, or dropped). */
export async function readAgentChannel(client: pg.Client, agentId: string, kind: ChannelKind): Promise<string> {
  const { rows } = await client.query<{ channel: string }>(READ_CHANNEL[kind], [agentId]);
  const channel = rows[0]?.channel;
  if (channel === undefined || !CHANNEL_NAME.test(channel)) {
    throw new Error(`the agent has no ${kind} channel: its engine role is not provisioned`);
  }
  return channel;
}

/** pg_notify on the agent's run channel, for a statement whose $1 is the agent id. */
export const notifyOnRunChannel = (payloadSql: string) =>
  `pg_notify((SELECT run_channel FROM engine_channels WHERE agent_id = $1), ${payloadSql})`;
