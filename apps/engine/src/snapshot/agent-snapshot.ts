// Everything one applied config needs at run time, built once at apply: the agent runtime, its MCP
// connections, its authenticator and its compiled guardrails. Runs lease the snapshot they start on, so a newer config never
// pulls the MCP connections from under them: a replaced snapshot closes once its last run is done.
import type { TEngineConfig, TSsoConfig } from '@agentplane/contracts';
import type { Counter, Logger } from '@agentplane/server-kit';
import type { AgentRuntime, AgentToolbox } from '../agents/agent-runtime.js';
import { type AgentLoadFailure, createAgentRuntime } from '../agents/create-agent-runtime.js';
import type { ModelSettings } from '../agents/llm/model-credentials.js';
import { type Authenticator, createAuthenticator } from '../auth/authenticator.js';
import type { JwksResolvers } from '../auth/jwks-resolver.js';
import { managerTokenSettings } from '../auth/manager-tokens.js';
import { type BudgetLedger, enforceBudgets } from '../budgets/budget-guard.js';
import type { AgentDb } from '../database/agent-db.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import { compileGuardrails } from '../guardrails/compile-guardrails.js';
import { guardToolbox } from '../guardrails/guard-toolbox.js';
import { createGuardrailRecorder } from '../guardrails/guardrail-recorder.js';
import { currentGuardrailScope } from '../guardrails/guardrail-run-scope.js';
import type { AgentGuardrails } from '../guardrails/guardrail-types.js';
import { createModelJudge } from '../guardrails/model-judge.js';
import { createAgentCallTokens } from '../mcp/agent-call-tokens.js';
import { connectMcpToolset, type McpToolset, type McpToolsetOptions } from '../mcp/mcp-toolset.js';
import type { StdioPolicy } from '../mcp/stdio-policy.js';
import type { RunGuardrails } from '../runs/guarded-run.js';
import { type AgentTracing, createAgentTracing } from '../tracing/agent-tracing.js';
import type { SpanExportThread } from '../tracing/export-thread.js';

export type AgentSnapshot = {
  version: number;
  config: TEngineConfig;
  /** Absent when the agent's module did not load; `loadFailure` says why (503 for runs, degraded health). */
  runtime: AgentRuntime | undefined;
  loadFailure: AgentLoadFailure | undefined;
  toolset: McpToolset;
  auth: Authenticator;
  /** The config's guardrails, compiled once for all its runs; undefined when it has none. */
  guardrails: AgentGuardrails | undefined;
  /** The guardrails as a run applies them (runs/guarded-run.ts): with the counter and the content capture setting. */
  runGuardrails: RunGuardrails | undefined;
  /** Where this config's runs send their spans (nowhere without an observability config). */
  tracing: AgentTracing;
  /** Keeps the snapshot open until the returned release is called. */
  lease: () => () => void;
  /** Marks the snapshot replaced; resolves once its last lease is released and its resources are closed. */
  retire: () => Promise<void>;
};

export type SnapshotDependencies = {
  resolvers: JwksResolvers;
  /** Every connection to a tenant-chosen URL (MCP, model baseUrl) goes through it. */
  egress: EgressPolicy;
  /** Where traced configs export their spans from. */
  spanExport: SpanExportThread;
  oidcFallback: TSsoConfig | undefined;
  managerIssuer: string | undefined;
  authDisabled: boolean;
  models: ModelSettings;
  /** Which stdio MCP servers may be spawned. */
  stdio: StdioPolicy;
  /** Where LANGGRAPH and CUSTOM module paths are resolved. */
  agentsDir: string;
  /** LangGraph thread memory is kept here when set. */
  db: AgentDb | undefined;
  logger: Logger;
  /** Where budgets are counted; without it a config's budgets are not enforced (start-engine.ts refuses that). */
  budgets?: BudgetLedger | undefined;
  toolCalls?: McpToolsetOptions['toolCalls'];
  toolRefusals?: McpToolsetOptions['toolRefusals'];
  /** Counts the guardrail rules that fire (agentplane_guardrail_actions_total). */
  guardrailActions?: Counter<'kind' | 'position' | 'action'> | undefined;
};

/** The config's guardrails, compiled with a model judge when the agent has a model of the engine's to judge with. */
function compileConfigGuardrails(config: TEngineConfig, deps: SnapshotDependencies, logger: Logger) {
  if (config.guardrails.length === 0) return undefined;
  const { agent } = config;
  const judge =
    agent.framework === 'LLM'
      ? createModelJudge(agent.config, {
          models: deps.models,
          logger,
          egressFetch: deps.egress.fetch,
          countUsage: (usage) => currentGuardrailScope()?.countUsage?.(usage),
        })
      : undefined;
  return compileGuardrails(config.guardrails, judge === undefined ? {} : { judge });
}

/**
 * The toolbox LangGraph graphs and custom agents hold for the whole config (the LLM agent takes its
 * run's): guarded as a run's is, reporting to the run whose events are being pulled, or, for a call
 * made outside any run, to the counter and the log alone.
 */
function guardConfigToolbox(toolset: McpToolset, guardrails: RunGuardrails | undefined, logger: Logger): AgentToolbox {
  if (guardrails === undefined) return toolset;
  const { rules } = guardrails;
  const outsideRuns = createGuardrailRecorder({ ...guardrails, trace: undefined, keep: undefined, log: logger });
  return guardToolbox(toolset, rules, (hit) => (currentGuardrailScope()?.report ?? outsideRuns)(hit));
}

export async function createAgentSnapshot(
  config: TEngineConfig,
  version: number,
  deps: SnapshotDependencies,
): Promise<AgentSnapshot> {
  const logger = deps.logger.child({ config_version: version });
  const auth = createAuthenticator({
    sso: config.sso,
    fallback: deps.oidcFallback,
    manager: deps.managerIssuer === undefined ? undefined : managerTokenSettings(deps.managerIssuer, config.agent.id),
    authDisabled: deps.authDisabled,
    resolvers: deps.resolvers,
    logger,
  });
  // Compiled before anything is opened: a config whose rules do not compile leaves nothing to close.
  const rules = compileConfigGuardrails(config, deps, logger);
  const runGuardrails: RunGuardrails | undefined =
    rules === undefined
      ? undefined
      : { rules, captureContent: config.observability?.capture_content ?? false, counter: deps.guardrailActions };
  // Tools first: agent modules may ask for them (getMcpTools) while they load.
  const toolset = await connectMcpToolset(config.mcp_servers, {
    logger,
    stdio: deps.stdio,
    egress: deps.egress,
    ...(deps.toolCalls === undefined ? {} : { toolCalls: deps.toolCalls }),
    ...(deps.toolRefusals === undefined ? {} : { toolRefusals: deps.toolRefusals }),
    policy: config.agent.config.tools,
    agentCalls: {
      calls: config.agent_calls,
      tokens:
        deps.managerIssuer === undefined || config.agent_calls === null
          ? undefined
          : createAgentCallTokens(deps.managerIssuer, config.agent_calls.credential),
    },
  });
  const choice = await createAgentRuntime(config, {
    models: deps.models,
    logger,
    version,
    agentsDir: deps.agentsDir,
    db: deps.db,
    egressFetch: deps.egress.fetch,
    toolbox: guardConfigToolbox(toolset, runGuardrails, logger),
  }).catch(async (error: unknown) => {
    await toolset.close();
    throw error;
  });
  // Built last, so that a runtime that fails to build leaves no exporter behind.
  const tracing = createAgentTracing(config, deps.spanExport);
  const runtime =
    choice.runtime === undefined || deps.budgets === undefined
      ? choice.runtime
      : enforceBudgets(choice.runtime, config, deps.budgets);

  let leases = 0;
  let retired = false;
  let closed: Promise<void> | undefined;
  let onClosed: () => void = () => {};
  const whenClosed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const closeIfIdle = () => {
    if (!retired || leases > 0 || closed !== undefined) return;
    // The exporter goes last of all, with its runs: every span they ended is sent before it closes.
    closed = Promise.all([toolset.close(), runtime?.close?.(), tracing.shutdown()])
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, 'could not close the agent runtime'),
      )
      .finally(onClosed);
  };

  return {
    version,
    config,
    runtime,
    loadFailure: choice.runtime === undefined ? choice.loadFailure : undefined,
    toolset,
    auth,
    guardrails: runGuardrails?.rules,
    runGuardrails,
    tracing,
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
