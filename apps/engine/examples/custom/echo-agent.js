// A custom AG-UI agent for the engine: the module exports a factory that receives the engine's
// context (config, MCP tools, logger) and returns an AbstractAgent. ENGINE_AGENTS_DIR=examples and
//   agent: { framework: CUSTOM, config: { module: "custom/echo-agent.js:createAgent" } }
// The engine relays what run() emits and holds it to the AG-UI event order.
import { AbstractAgent, EventType } from '@ag-ui/client';
import { Observable } from 'rxjs';

class EchoAgent extends AbstractAgent {
  constructor(ctx) {
    super({ description: 'Repeats what you say, and names its tools' });
    this.ctx = ctx;
  }

  run(input) {
    return new Observable((subscriber) => {
      const { threadId, runId } = input;
      const last = input.messages.filter((message) => message.role === 'user').at(-1);
      const said = typeof last?.content === 'string' ? last.content : '(nothing)';
      const tools = this.ctx.tools.map((tool) => tool.name).join(', ') || 'none';
      const messageId = crypto.randomUUID();
      subscriber.next({ type: EventType.RUN_STARTED, threadId, runId });
      subscriber.next({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
      subscriber.next({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: `You said: ${said}. ` });
      subscriber.next({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: `My tools: ${tools}.` });
      subscriber.next({ type: EventType.TEXT_MESSAGE_END, messageId });
      subscriber.next({ type: EventType.RUN_FINISHED, threadId, runId });
      subscriber.complete();
    });
  }
}

export function createAgent(ctx) {
  ctx.logger.info({ agent: ctx.config.agent.name }, 'echo agent ready');
  return new EchoAgent(ctx);
}
