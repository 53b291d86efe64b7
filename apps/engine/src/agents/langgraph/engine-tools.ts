// What operator code imports from the engine (`@agentplane/engine/tools`): the agent's MCP tools as
// LangChain tools. The engine sets them while it imports the agent's module and while it runs it, so
// graph code may call getMcpTools() at its top level or inside a node. The slot lives on globalThis
// under a registered symbol, so a second copy of this file (an operator bundle, another resolution of
// the package) still sees the tools of the engine that loaded it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StructuredToolInterface } from '@langchain/core/tools';

export type EngineToolContext = { tools: StructuredToolInterface[] };

type ToolSlot = { storage: AsyncLocalStorage<EngineToolContext>; loading: EngineToolContext | undefined };

const SLOT_KEY = Symbol.for('agentplane.engine.tools');

function readSlot(): ToolSlot {
  const holder = globalThis as { [SLOT_KEY]?: ToolSlot };
  holder[SLOT_KEY] ??= { storage: new AsyncLocalStorage(), loading: undefined };
  return holder[SLOT_KEY];
}

/** The agent's MCP tools (named `<server>__<tool>`), ready for `bindTools` and `ToolNode`. */
export function getMcpTools(): StructuredToolInterface[] {
  const slot = readSlot();
  const context = slot.storage.getStore() ?? slot.loading;
  if (context === undefined) {
    throw new Error('getMcpTools() is only available while the engine loads or runs an agent module.');
  }
  return [...context.tools];
}

/** Runs `work` (an import or a run step) with `context` as what getMcpTools() returns. */
export async function withEngineTools<T>(context: EngineToolContext, work: () => Promise<T>): Promise<T> {
  const slot = readSlot();
  // Module evaluation may not inherit the async context of import(), so loads also set a plain slot;
  // the config holder applies one config at a time, so loads never overlap within an engine.
  const previous = slot.loading;
  slot.loading = context;
  try {
    return await slot.storage.run(context, work);
  } finally {
    slot.loading = previous;
  }
}

/** Runs one step of a run (a pull of its event stream) inside the tool context, without the load slot. */
export function runInEngineTools<T>(context: EngineToolContext, work: () => T): T {
  return readSlot().storage.run(context, work);
}
