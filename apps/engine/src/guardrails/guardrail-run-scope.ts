// Which run a guardrail check belongs to, where the check cannot be told: LangGraph graphs and custom
// agents get their tools once per config, not per run, and the model judge is built once per config
// too. A run's events are pulled inside its scope, so a tool call or a judge's model call made while
// the run goes on reports to that run's record and counts in its usage.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenUsage } from '../agents/agent-runtime.js';
import type { ReportGuardrailHit } from './guardrail-types.js';

export type GuardrailRunScope = {
  report: ReportGuardrailHit;
  /** The run's usage meter: a model judge's tokens count as the run's own. */
  countUsage: ((usage: TokenUsage) => void) | undefined;
};

const scopes = new AsyncLocalStorage<GuardrailRunScope>();

/** The scope of the run whose events are being pulled, if any. */
export function currentGuardrailScope(): GuardrailRunScope | undefined {
  return scopes.getStore();
}

/** Runs `work` inside the run's scope. */
export function inGuardrailScope<T>(scope: GuardrailRunScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** Pulls `source` inside the run's scope, one event at a time, so all the work each pull does is the run's. */
export async function* pullInGuardrailScope<T>(scope: GuardrailRunScope, source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = scopes.run(scope, () => source[Symbol.asyncIterator]());
  try {
    while (true) {
      const next = await scopes.run(scope, () => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await scopes.run(scope, async () => iterator.return?.());
  }
}
