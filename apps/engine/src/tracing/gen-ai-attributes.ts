// The GenAI and MCP semantic-convention names the engine's spans carry. They are still "incubating"
// in OpenTelemetry, whose advice is to copy such names rather than import the incubating entry point.
export const GEN_AI = {
  OPERATION_NAME: 'gen_ai.operation.name',
  PROVIDER_NAME: 'gen_ai.provider.name',
  /** The older name of the provider, still the one some backends read. */
  SYSTEM: 'gen_ai.system',
  AGENT_ID: 'gen_ai.agent.id',
  AGENT_NAME: 'gen_ai.agent.name',
  CONVERSATION_ID: 'gen_ai.conversation.id',
  REQUEST_MODEL: 'gen_ai.request.model',
  RESPONSE_FINISH_REASONS: 'gen_ai.response.finish_reasons',
  USAGE_INPUT_TOKENS: 'gen_ai.usage.input_tokens',
  USAGE_OUTPUT_TOKENS: 'gen_ai.usage.output_tokens',
  INPUT_MESSAGES: 'gen_ai.input.messages',
  OUTPUT_MESSAGES: 'gen_ai.output.messages',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_TYPE: 'gen_ai.tool.type',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
} as const;

export const MCP = {
  METHOD_NAME: 'mcp.method.name',
  /** The agent's name for the MCP server (conventions have none yet; this follows their pattern). */
  SERVER_NAME: 'mcp.server.name',
} as const;

/** A LangGraph node's span carries its node name here. */
export const LANGGRAPH_NODE = 'langgraph.node';
