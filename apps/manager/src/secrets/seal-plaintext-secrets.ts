// Seals the secrets a stored row still holds in plaintext: URL queries written before they were
// secrets (an MCP server's url, a trace endpoint, an LLM agent's model baseUrl), or any secret field of a
// row written by hand. Reads show the same values before and after, since opening passes plaintext
// through. SQL, because each write is a compare-and-set on the stored config: a PATCH that commits in
// between wins and keeps what it wrote (sealed), so no lock is held across a batch and managers starting
// together are safe. Table and column names are fixed here, never from input.
import {
  mapAgentConfigSecrets,
  mapIntegrationSecrets,
  mapMcpServerSecrets,
  mapObservabilitySecrets,
  type SecretTransform,
  type TIntegrationConfig,
  type TMcpServerConfig,
  type TObservabilityConfig,
} from '@agentplane/contracts';
import { type Db, isSealed, type SecretBox } from '@agentplane/db';

const BATCH_SIZE = 100;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

type TableWithSecrets = {
  table: string;
  /** The column the shape of `config` depends on (a provider, a framework), as text. */
  shape: string;
  mapSecrets: (config: unknown, shape: string, transform: SecretTransform) => unknown;
};

const TABLES_WITH_SECRETS: readonly TableWithSecrets[] = [
  {
    table: 'mcp_servers',
    shape: "''",
    mapSecrets: (config, _shape, transform) => mapMcpServerSecrets(config as TMcpServerConfig, transform),
  },
  {
    table: 'observability_configs',
    shape: "''",
    mapSecrets: (config, _shape, transform) => mapObservabilitySecrets(config as TObservabilityConfig, transform),
  },
  {
    table: 'integrations',
    shape: 'provider::text',
    mapSecrets: (config, provider, transform) =>
      mapIntegrationSecrets({ provider, config } as TIntegrationConfig, transform).config,
  },
  {
    table: 'agents',
    shape: 'framework::text',
    mapSecrets: (config, framework, transform) => mapAgentConfigSecrets(framework, config, transform),
  },
];

type StoredRow = { id: string; shape: string; config: string };

/** The row's config with every plaintext secret sealed, or undefined when it holds none. */
function sealPlaintextOf(row: StoredRow, { mapSecrets }: TableWithSecrets, box: SecretBox): string | undefined {
  let found = false;
  const config = mapSecrets(JSON.parse(row.config), row.shape, (value) => {
    if (isSealed(value)) return value;
    found = true;
    return box.seal(value);
  });
  return found ? JSON.stringify(config) : undefined;
}

async function sealTable(db: Db, table: TableWithSecrets, box: SecretBox): Promise<number> {
  let sealed = 0;
  let after = FIRST_ID;
  for (;;) {
    const rows = await db.sql<StoredRow>(
      `SELECT id::text AS id, ${table.shape} AS shape, config::text AS config FROM ${table.table}
      WHERE id > $1::uuid ORDER BY id LIMIT $2`,
      [after, BATCH_SIZE],
    );
    for (const row of rows) {
      const config = sealPlaintextOf(row, table, box);
      if (config === undefined) continue;
      // Compared with the config as read: a row written meanwhile is left as its writer left it.
      const written = await db.sql(
        `UPDATE ${table.table} SET config = $2::jsonb WHERE id = $1::uuid AND config = $3::jsonb RETURNING id`,
        [row.id, config, row.config],
      );
      sealed += written.length;
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < BATCH_SIZE) return sealed;
    after = last.id;
  }
}

/** Returns how many rows were sealed; a second run finds none. */
export async function sealPlaintextSecrets(db: Db, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (const table of TABLES_WITH_SECRETS) sealed += await sealTable(db, table, box);
  return sealed;
}
