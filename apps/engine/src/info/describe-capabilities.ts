// GET /agent/capabilities: what the agent can do, in the engine's words (framework, input and output
// modes with their JSON Schemas, and for a LangGraph graph the JSON Schemas of its state when its state
// is declared with a schema) and in AG-UI's own AgentCapabilities fields, which the framework adds to.
import type { AgentCapabilities } from '@ag-ui/core';
import { EventSchemas, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { AGUI_MEDIA_TYPE } from '@ag-ui/encoder';
import { z } from 'zod';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';

let schemas: { input: unknown; output: unknown } | undefined;

// Built on first use and kept: they never change while the process runs.
function readSchemas() {
  schemas ??= {
    input: z.toJSONSchema(RunAgentInputSchema, { unrepresentable: 'any' }),
    output: z.toJSONSchema(EventSchemas, { unrepresentable: 'any' }),
  };
  return schemas;
}

export function describeCapabilities(snapshot: AgentSnapshot) {
  const { agent } = snapshot.config;
  const { input, output } = readSchemas();
  const fromRuntime = snapshot.runtime?.capabilities;
  const stateSchemas = fromRuntime?.stateSchemas;
  const capabilities: AgentCapabilities = {
    ...fromRuntime?.agui,
    identity: { ...fromRuntime?.agui?.identity, name: agent.name },
    transport: { streaming: true, httpBinary: true },
    ...(agent.framework === 'LLM'
      ? {
          tools: {
            supported: true,
            items: snapshot.toolset.tools.map(({ name, description, parameters }) => ({
              name,
              description,
              parameters,
            })),
            clientProvided: true,
            parallelCalls: true,
          },
          execution: { maxIterations: agent.config.maxSteps },
        }
      : {}),
  };
  return {
    framework: agent.framework,
    supported: snapshot.runtime !== undefined,
    ...(snapshot.loadFailure === undefined ? {} : { detail: describeLoadFailure(snapshot.loadFailure) }),
    streaming: true,
    ...capabilities,
    input: {
      mode: 'ag-ui',
      content_type: 'application/json',
      schema: input,
      ...(stateSchemas?.input === undefined ? {} : { state_schema: stateSchemas.input }),
    },
    output: {
      mode: 'ag-ui-events',
      content_types: ['text/event-stream', AGUI_MEDIA_TYPE],
      schema: output,
      ...(stateSchemas?.output === undefined ? {} : { state_schema: stateSchemas.output }),
    },
  };
}
