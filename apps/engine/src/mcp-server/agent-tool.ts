// The one tool an agent's MCP server offers: the agent itself. Its name is derived from the agent's name
// (contracts' agentToolName), its description is the agent's; it takes a message and an optional thread
// to continue, and answers the reply with the thread and run it went to.
import { agentToolName, formatZodIssues, ZAguiId } from '@agentplane/contracts';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';

/** The longest message a tool call may carry, in characters; the body's byte limit applies too. */
export const MESSAGE_MAX_LENGTH = 100_000;

export const ZAgentToolInput = z.strictObject({
  message: z.string().min(1).max(MESSAGE_MAX_LENGTH).describe('What to say to the agent'),
  thread_id: ZAguiId.optional().describe(
    "The thread to continue, from an earlier call's thread_id; a new thread when omitted",
  ),
});
export type AgentToolInput = z.infer<typeof ZAgentToolInput>;

const ZPendingInterrupt = z.object({
  id: z.string().describe('The interrupt id a resume answers'),
  reason: z.string().describe('Why the run stopped: `tool_approval`, or what the agent named'),
  tool: z.string().optional().describe('The tool awaiting approval'),
  message: z.string().optional(),
});

export const ZAgentToolOutput = z.object({
  reply: z.string().describe("The agent's answer (on an error result, what it said before it stopped)"),
  thread_id: z.string().describe('The thread the message went to: pass it again to continue the conversation'),
  run_id: z.string().describe('The run that answered, as GET /agent/runs/{run_id} shows it'),
  pending_interrupts: z
    .array(ZPendingInterrupt)
    .optional()
    .describe('On an error result of a run that ended input_required: what it waits for'),
});
export type AgentToolOutput = z.infer<typeof ZAgentToolOutput>;

const jsonSchemaOf = (schema: z.ZodObject) => z.toJSONSchema(schema) as Tool['inputSchema'];
const INPUT_SCHEMA = jsonSchemaOf(ZAgentToolInput);
const OUTPUT_SCHEMA = jsonSchemaOf(ZAgentToolOutput);

export function describeAgentTool(config: AgentSnapshot['config']): Tool {
  const { name, description } = config.agent;
  return {
    name: agentToolName(name),
    title: name,
    description: description ?? `Sends a message to the agent "${name}" and answers its reply.`,
    inputSchema: INPUT_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
    // The agent may act on the world through its own tools, and each call is a new run.
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/** The call's arguments, or a JSON-RPC invalid params error saying what is wrong with them. */
export function parseAgentToolInput(args: unknown): AgentToolInput {
  const parsed = ZAgentToolInput.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const problems = formatZodIssues(parsed.error).map(({ path, message }) => `${path || 'arguments'}: ${message}`);
  throw new McpError(ErrorCode.InvalidParams, `Invalid arguments: ${problems.join('; ')}`);
}
