// A graph's interrupt(value) as an AG-UI interrupt (reason `graph_interrupt`), and the AG-UI `resume`
// that answers it as the graph's Command({resume}).
import { randomUUID } from 'node:crypto';
import type { Interrupt, RunAgentInput } from '@ag-ui/core';
import { Command } from '@langchain/langgraph';

/** An interrupt as LangGraph's getState() lists it in a task. */
export type GraphInterrupt = { id?: string; value?: unknown; response_schema?: unknown };

/** The value as text a person can read: a string as it is, anything else as JSON. */
function renderValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A value JSON cannot hold (a cycle, a BigInt) still gets a message.
    return String(value);
  }
}

/** The AG-UI interrupt: the value rendered as `message`, and itself (JSON) in `metadata.value`. */
export function toGraphInterrupt(raw: GraphInterrupt): Interrupt {
  const message = renderValue(raw.value);
  return {
    id: raw.id ?? randomUUID(),
    reason: 'graph_interrupt',
    ...(message === undefined ? {} : { message }),
    ...(raw.response_schema === undefined ? {} : { responseSchema: raw.response_schema as Record<string, unknown> }),
    metadata: { value: toJson(raw.value) },
  };
}

function toJson(value: unknown): unknown {
  try {
    return value === undefined ? null : (JSON.parse(JSON.stringify(value)) ?? null);
  } catch {
    return renderValue(value) ?? null;
  }
}

/** One resolved entry resumes with its payload; several, with a map keyed by interrupt id. */
export function buildResume(input: RunAgentInput): Command | undefined {
  const answered = (input.resume ?? []).filter((entry) => entry.status === 'resolved');
  // Cancelled interrupts are abandoned: the run starts over from the new input.
  if (answered.length === 0) return undefined;
  if (answered.length === 1) return new Command({ resume: answered[0]?.payload ?? null });
  return new Command({
    resume: Object.fromEntries(answered.map((entry) => [entry.interruptId, entry.payload ?? null])),
  });
}
