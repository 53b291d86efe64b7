import { randomUUID } from 'node:crypto';
import type { RunAgentInput } from '@ag-ui/core';

/** A valid AG-UI RunAgentInput with one user message, on a new thread unless `overrides` say otherwise. */
export function makeRunAgentInput(content = 'hi', overrides: Partial<RunAgentInput> = {}): RunAgentInput {
  return {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: 'user', content }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...overrides,
  };
}
