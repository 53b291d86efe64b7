// An agent's NOTIFY channels (engine_channels): random names that its own role alone may read, so that
// no other tenant's engine can listen to its news or send it wake-ups. Config changes come from the
// manager on the config channel; run news goes between the agent's engines on the run channel.

/** pg_notify on the agent's run channel, for a statement whose $1 is the agent id. */
export const notifyOnRunChannel = (payloadSql: string) =>
  `pg_notify((SELECT run_channel FROM engine_channels WHERE agent_id = $1), ${payloadSql})`;
