// A LangGraph.js agent for the engine: a chat model that may call the agent's MCP tools, in a loop
// until it answers. The engine hosts it as an AG-UI service: ENGINE_AGENTS_DIR=examples and
//   agent: { framework: LANGGRAPH, config: { graph: "langgraph/tool-agent.js:graph" } }
// The model is any OpenAI-compatible server: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL.
import { getMcpTools } from '@agentplane/engine/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';

// The tools of the MCP servers the agent is configured with, named "<server>__<tool>".
const tools = getMcpTools();

const model = new ChatOpenAI({
  model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
  apiKey: process.env.OPENAI_API_KEY ?? 'unset',
  configuration: process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {},
});
const modelWithTools = tools.length > 0 ? model.bindTools(tools) : model;

async function callModel(state) {
  const reply = await modelWithTools.invoke([
    { role: 'system', content: 'You are a helpful assistant. Use the tools when they help.' },
    ...state.messages,
  ]);
  return { messages: [reply] };
}

function nextStep(state) {
  const last = state.messages.at(-1);
  return last?.tool_calls?.length ? 'tools' : END;
}

// Exported as a builder: the engine compiles it with its checkpointer, so every AG-UI thread keeps
// its conversation (in PostgreSQL when the engine has DATABASE_URL).
export const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', callModel)
  .addNode('tools', new ToolNode(tools))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', nextStep, ['tools', END])
  .addEdge('tools', 'agent');
