// The agent's MCP toolbox as LangChain tools: same names, descriptions and JSON Schemas, each call
// routed to its MCP server with the run's abort signal.
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import type { AgentToolbox } from '../agent-runtime.js';

const NEVER_ABORTED = new AbortController().signal;

export function toLangChainTools(toolbox: AgentToolbox): StructuredToolInterface[] {
  return toolbox.tools.map((definition) =>
    tool(
      async (args: Record<string, unknown>, config) => {
        // A failed call comes back as text the model can read, as in the built-in LLM agent.
        const outcome = await toolbox.call(definition.name, args ?? {}, config?.signal ?? NEVER_ABORTED);
        return outcome.text;
      },
      {
        name: definition.name,
        description: definition.description,
        schema: definition.parameters as Record<string, unknown> & { type: 'object' },
      },
    ),
  );
}
