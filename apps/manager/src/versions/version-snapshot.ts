// What a version keeps: the agent's own settings in the shape of a PATCH body (its spec, which a
// rollback restores) and the engine_config published as that version, with the resources' configs of
// that moment. Both hold their secrets sealed with the platform key (SECRETS_KEY), never an engine's: a
// move or an engine key's rotation leaves every old version readable by the manager alone.
import {
  mapAgentConfigSecrets,
  mapEngineConfigSecrets,
  type SecretTransform,
  type TAgentFramework,
  type TAgentResources,
  type TDeployment,
  type TEngineConfig,
} from '@agentplane/contracts';
import type { SecretBox } from '@agentplane/db';
import { resourcesOf } from '../agents/agent-response.js';
import { deploymentOf } from '../engine-pools/deployments.js';
import type { readAgentsWithResources } from '../publishing/read-agents-with-resources.js';

export type VersionSpec = {
  name: string;
  description: string | null;
  framework: TAgentFramework;
  /** The agent's own config, as agents.config stores it (secrets sealed). */
  agent: unknown;
  resources: TAgentResources;
  engine_url: string | null;
  deployment: TDeployment;
};

export type VersionSnapshot = { spec: VersionSpec; engine_config: TEngineConfig };

export type PublishedAgent = Awaited<ReturnType<typeof readAgentsWithResources>>[number];

/** The snapshot of `agent` as it is published with `config` (in plaintext, as derived). */
export function snapshotOf(agent: PublishedAgent, config: TEngineConfig, box: SecretBox): VersionSnapshot {
  return {
    spec: {
      name: agent.name,
      description: agent.description,
      framework: agent.framework as TAgentFramework,
      agent: agent.config,
      resources: resourcesOf(agent),
      engine_url: agent.engineUrl,
      deployment: deploymentOf(agent),
    },
    engine_config: mapEngineConfigSecrets(config, box.seal),
  };
}

/** The snapshot with each secret opened and then given to `show`: a mask, a comparison token, or itself. */
export function viewSnapshot(snapshot: VersionSnapshot, box: SecretBox, show: SecretTransform): VersionSnapshot {
  const reveal: SecretTransform = (value, path) => show(box.open(value), path);
  return {
    spec: { ...snapshot.spec, agent: mapAgentConfigSecrets(snapshot.spec.framework, snapshot.spec.agent, reveal) },
    engine_config: mapEngineConfigSecrets(snapshot.engine_config, reveal),
  };
}
