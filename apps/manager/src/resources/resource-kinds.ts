// The managed resource types differ only in their typed object, its contract, how it is stored
// and how agents reference it; everything else is shared by resource-service and resource-routes.
import {
  mapIntegrationSecrets,
  mapMcpServerSecrets,
  mapObservabilitySecrets,
  type TGuardrailConfig,
  type TIntegrationConfig,
  type TMcpServerConfig,
  type TObservabilityConfig,
  type TSsoConfig,
  ZGuardrail,
  ZGuardrailCreate,
  ZGuardrailUpdate,
  ZIntegration,
  ZIntegrationCreate,
  ZIntegrationUpdate,
  ZMcpServer,
  ZMcpServerCreate,
  ZMcpServerUpdate,
  ZObservability,
  ZObservabilityCreate,
  ZObservabilityUpdate,
  ZSso,
  ZSsoCreate,
  ZSsoUpdate,
} from '@agentplane/contracts';
import type { Db, Prisma, SecretBox, Tx } from '@agentplane/db';
import type { z } from 'zod';
import { calleeOf, lockCallee } from '../agent-calls/callee-references.js';
import type { TenantUrl } from '../egress/refuse-private-urls.js';
import { guardrailUsesByWorkspace } from '../guardrails/guardrail-uses.js';
import { refuseJudgesForAgentsWithoutModel } from '../guardrails/model-judges.js';
import { checkMcpServerAllowed, type OperatorPolicy } from '../operator-policy/operator-policy.js';
import type { MapSecrets } from '../secrets/keep-masked-secrets.js';

/** The columns every managed resource row has, plus the typed object's own columns. */
export type StoredResourceRow = {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
} & Record<string, unknown>;

/** A row as the API shows it: with the number of agents that reference it. */
export type ResourceRow = StoredResourceRow & { agentCount: number };

/** The part of a Prisma model delegate the shared service uses for writes; each kind's delegate has it. */
export type ResourceDelegate = {
  count(args: object): Promise<number>;
  create(args: object): Promise<StoredResourceRow>;
  update(args: object): Promise<unknown>;
  deleteMany(args: object): Promise<{ count: number }>;
};

/** A use that refuses a delete (409), for its detail: "This guardrail {what}; {undo} first." */
export type ResourceUse = { what: string; undo: string };

export type ResourceKind<Typed> = {
  /** Singular, for messages: "integration". */
  label: string;
  /** Path segment below /api/v1: "integrations". */
  segment: string;
  /** Name of the typed object in bodies and responses: "integration". */
  key: string;
  /** For OpenAPI operation ids: "Integration". */
  operationName: string;
  createBody: z.ZodType<{ name: string } & Record<string, unknown>>;
  /** The same shape as createBody (PATCH is a full replacement), named for the OpenAPI document. */
  updateBody: z.ZodType<{ name: string } & Record<string, unknown>>;
  response: z.ZodType;
  delegate: (db: Db | Tx) => ResourceDelegate;
  /** Where rows live, for the reads done in SQL: the typed object's columns under its field names, and
   * the table and column that link agents to a resource. */
  storage: { table: string; typedColumns: string; agentLinks: { table: string; column: string } };
  /** Maps every secret of the typed object (sealing, opening, masking), with its path inside it. */
  mapSecrets: MapSecrets<Typed>;
  /** The typed object as stored columns, secrets sealed. */
  toColumns: (typed: Typed, box: SecretBox) => Record<string, unknown>;
  /** The typed object from a stored row, secrets opened. */
  fromRow: (row: Record<string, unknown>, box: SecretBox) => Typed;
  /** Which agents reference a resource of this kind (agent_count counts them). */
  agentsReferencing: (id: string) => Prisma.AgentWhereInput;
  /** Which agents' engine configs carry it, when more than those referencing it: a PATCH republishes them. */
  agentsApplying?: (id: string) => Prisma.AgentWhereInput;
  /** What else keeps it from being deleted besides agents referencing it, in words for the 409. */
  otherUses?: (db: Db | Tx, id: string) => Promise<ResourceUse[]>;
  /** The OpenAPI description of the delete's 409, when otherUses adds to "agents use it". */
  inUseDescription?: string;
  /** Said in the OpenAPI responses when agent_count is not all the agents it applies to. */
  agentCountNote?: string;
  /** Refuses (422), in a PATCH's transaction, a replacement that an agent referencing it could not run. */
  checkForAgents?: (tx: Tx, id: string, typed: Typed) => Promise<void>;
  /** Refuses (422) what the operator does not let tenants configure, before anything is written. */
  checkAllowed?: (typed: Typed, policy: OperatorPolicy) => void;
  /** The URLs in the typed object an engine will connect to, for the egress check at write time. */
  tenantUrls: (typed: Typed) => TenantUrl[];
  /** Checks (422) and locks, in the write's transaction, what the typed object references besides resources. */
  lockReferences?: (tx: Tx, workspaceId: string, typed: Typed) => Promise<void>;
};

const asDelegate = (delegate: unknown) => delegate as ResourceDelegate;

export const INTEGRATIONS: ResourceKind<TIntegrationConfig> = {
  label: 'integration',
  segment: 'integrations',
  key: 'integration',
  operationName: 'Integration',
  createBody: ZIntegrationCreate,
  updateBody: ZIntegrationUpdate,
  response: ZIntegration,
  delegate: (db) => asDelegate(db.integration),
  storage: {
    table: 'integrations',
    typedColumns: 'r.provider::text AS provider, r.enabled, r.config',
    agentLinks: { table: 'agent_integrations', column: 'integration_id' },
  },
  mapSecrets: mapIntegrationSecrets,
  toColumns: (typed, box) => {
    const sealed = mapIntegrationSecrets(typed, box.seal);
    return { provider: sealed.provider, enabled: sealed.enabled, config: sealed.config };
  },
  fromRow: (row, box) =>
    mapIntegrationSecrets(
      { provider: row.provider, enabled: row.enabled, config: row.config } as TIntegrationConfig,
      box.open,
    ),
  agentsReferencing: (id) => ({ integrations: { some: { integrationId: id } } }),
  tenantUrls: () => [],
};

export const MCP_SERVERS: ResourceKind<TMcpServerConfig> = {
  label: 'MCP server',
  segment: 'mcp-servers',
  key: 'mcp_server',
  operationName: 'McpServer',
  createBody: ZMcpServerCreate,
  updateBody: ZMcpServerUpdate,
  response: ZMcpServer,
  delegate: (db) => asDelegate(db.mcpServer),
  storage: {
    table: 'mcp_servers',
    typedColumns: 'r.config',
    agentLinks: { table: 'agent_mcp_servers', column: 'mcp_server_id' },
  },
  mapSecrets: mapMcpServerSecrets,
  // The called agent is a column too: its foreign key keeps the agent while a server points at it.
  toColumns: (typed, box) => ({ config: mapMcpServerSecrets(typed, box.seal), agentId: calleeOf(typed) }),
  fromRow: (row, box) => mapMcpServerSecrets(row.config as TMcpServerConfig, box.open),
  agentsReferencing: (id) => ({ mcpServers: { some: { mcpServerId: id } } }),
  checkAllowed: checkMcpServerAllowed,
  // A stdio server ignores a url left over from another transport; an agent's is the platform's.
  tenantUrls: (typed) =>
    typed.transport === 'stdio' || typed.transport === 'agent' ? [] : [{ path: 'mcp_server.url', url: typed.url }],
  lockReferences: lockCallee,
};

export const SSO_CONFIGS: ResourceKind<TSsoConfig> = {
  label: 'SSO config',
  segment: 'sso',
  key: 'sso',
  operationName: 'Sso',
  createBody: ZSsoCreate,
  updateBody: ZSsoUpdate,
  response: ZSso,
  delegate: (db) => asDelegate(db.ssoConfig),
  storage: { table: 'sso_configs', typedColumns: 'r.config', agentLinks: { table: 'agents', column: 'sso_id' } },
  // An OIDC setting holds no secret: it names a public issuer and its public keys.
  mapSecrets: (typed) => typed,
  toColumns: (typed) => ({ config: typed }),
  fromRow: (row) => row.config as TSsoConfig,
  agentsReferencing: (id) => ({ ssoId: id }),
  tenantUrls: (typed) => [
    { path: 'sso.issuer', url: typed.issuer },
    { path: 'sso.jwksUri', url: typed.jwksUri },
  ],
};

export const OBSERVABILITY_CONFIGS: ResourceKind<TObservabilityConfig> = {
  label: 'observability config',
  segment: 'observability',
  key: 'observability',
  operationName: 'ObservabilityConfig',
  createBody: ZObservabilityCreate,
  updateBody: ZObservabilityUpdate,
  response: ZObservability,
  delegate: (db) => asDelegate(db.observabilityConfig),
  storage: {
    table: 'observability_configs',
    typedColumns: 'r.config',
    agentLinks: { table: 'agents', column: 'observability_id' },
  },
  mapSecrets: mapObservabilitySecrets,
  toColumns: (typed, box) => ({ config: mapObservabilitySecrets(typed, box.seal) }),
  fromRow: (row, box) => mapObservabilitySecrets(row.config as TObservabilityConfig, box.open),
  agentsReferencing: (id) => ({ observabilityId: id }),
  // Langfuse is reached at its host (its OTLP endpoint is a path below it).
  tenantUrls: (typed) => [
    typed.provider === 'LANGFUSE'
      ? { path: 'observability.host', url: typed.host }
      : { path: 'observability.endpoint', url: typed.endpoint },
  ],
};

export const GUARDRAILS: ResourceKind<TGuardrailConfig> = {
  label: 'guardrail',
  segment: 'guardrails',
  key: 'guardrail',
  operationName: 'Guardrail',
  createBody: ZGuardrailCreate,
  updateBody: ZGuardrailUpdate,
  response: ZGuardrail,
  delegate: (db) => asDelegate(db.guardrail),
  storage: {
    table: 'guardrails',
    typedColumns: 'r.config',
    agentLinks: { table: 'agent_guardrails', column: 'guardrail_id' },
  },
  // Rules are words, patterns and rubrics: nothing to seal or mask.
  mapSecrets: (typed) => typed,
  toColumns: (typed) => ({ config: typed }),
  fromRow: (row) => row.config as TGuardrailConfig,
  agentsReferencing: (id) => ({ guardrails: { some: { guardrailId: id } } }),
  // A workspace's default applies to every agent of it.
  agentsApplying: (id) => ({
    OR: [
      { guardrails: { some: { guardrailId: id } } },
      { workspace: { defaultGuardrails: { some: { guardrailId: id } } } },
    ],
  }),
  otherUses: guardrailUsesByWorkspace,
  agentCountNote:
    'agent_count counts the agents that name it in resources.guardrail_ids; a default guardrail of the workspace (GET /api/v1/workspaces/{id}, default_guardrail_ids) also applies to every agent of it, which agent_count does not count',
  inUseDescription:
    "Agents reference it, or it is one of its workspace's default guardrails; the detail says which (and names up to 5 agents)",
  checkForAgents: refuseJudgesForAgentsWithoutModel,
  tenantUrls: () => [],
};
