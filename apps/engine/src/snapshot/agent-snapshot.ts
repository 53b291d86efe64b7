// Everything one applied config needs at run time, built once at apply: the agent runtime, its MCP
// connections and its authenticator. Runs lease the snapshot they start on, so a newer config never
// pulls the MCP connections from under them: a replaced snapshot closes once its last run is done.
import type { TEngineConfig, TSsoConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime } from '../agents/agent-runtime.js';
import { createAgentRuntime } from '../agents/create-agent-runtime.js';
import { type Authenticator, createAuthenticator } from '../auth/authenticator.js';
import type { JwksResolver } from '../auth/jwks-resolver.js';
import { managerTokenSettings } from '../auth/manager-tokens.js';
import { connectMcpToolset, type McpToolset } from '../mcp/mcp-toolset.js';

export type AgentSnapshot = {
  version: number;
  config: TEngineConfig;
  /** Absent when the engine cannot run this framework yet; `unsupported` says why. */
  runtime: AgentRuntime | undefined;
  unsupported: string | undefined;
  toolset: McpToolset;
  auth: Authenticator;
  /** Keeps the snapshot open until the returned release is called. */
  lease: () => () => void;
  /** Marks the snapshot replaced; resolves once its last lease is released and its resources are closed. */
  retire: () => Promise<void>;
};

export type SnapshotDependencies = {
  resolver: JwksResolver;
  oidcFallback: TSsoConfig | undefined;
  managerIssuer: string | undefined;
  authDisabled: boolean;
  variables: NodeJS.ProcessEnv;
  logger: Logger;
};

export async function createAgentSnapshot(
  config: TEngineConfig,
  version: number,
  deps: SnapshotDependencies,
): Promise<AgentSnapshot> {
  const logger = deps.logger.child({ config_version: version });
  const choice = createAgentRuntime(config.agent, { variables: deps.variables, logger });
  const auth = createAuthenticator({
    sso: config.sso,
    fallback: deps.oidcFallback,
    manager: deps.managerIssuer === undefined ? undefined : managerTokenSettings(deps.managerIssuer, config.agent.id),
    authDisabled: deps.authDisabled,
    resolver: deps.resolver,
    logger,
  });
  // An agent the engine cannot run has no use for its tool servers, so none are started.
  const toolset = await connectMcpToolset(choice.runtime === undefined ? [] : config.mcp_servers, logger);

  let leases = 0;
  let retired = false;
  let closed: Promise<void> | undefined;
  let onClosed: () => void = () => {};
  const whenClosed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const closeIfIdle = () => {
    if (!retired || leases > 0 || closed !== undefined) return;
    closed = toolset.close().finally(onClosed);
  };

  return {
    version,
    config,
    runtime: choice.runtime,
    unsupported: choice.runtime === undefined ? choice.unsupported : undefined,
    toolset,
    auth,
    lease: () => {
      leases++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        leases--;
        closeIfIdle();
      };
    },
    retire: () => {
      retired = true;
      closeIfIdle();
      return whenClosed;
    },
  };
}
