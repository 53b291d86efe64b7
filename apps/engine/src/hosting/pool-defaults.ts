/** An agent without requests or runs for this long is unloaded; its next request loads it again. */
export const ENGINE_POOL_IDLE_MS_DEFAULT = 5 * 60_000;
/** The engine's PostgreSQL connections, whatever the number of its agents (plus one for LISTEN). */
export const ENGINE_POOL_DB_CONNECTIONS_DEFAULT = 10;
/** A dedicated engine's connections (plus one for LISTEN): two replicas stay within its role's limit of 20. */
export const DEDICATED_DB_CONNECTIONS_DEFAULT = 4;
/** Runs one agent may have going from its queue at once on a pool: one tenant cannot take every slot. */
export const ENGINE_POOL_AGENT_CONCURRENCY_DEFAULT = 4;
