// Budgets enforced where every run starts, whatever started it (/agent/run, the threads' queue,
// WhatsApp): the runtime of a config that carries a budget first reads the period's spend, and a run
// refused ends at once with RUN_STARTED then RUN_ERROR code BUDGET_EXCEEDED, without a model call. Its
// record says `failed` with that message, so usage reports count it as an error.
import { type BaseEvent, EventType } from '@ag-ui/core';
import { BUDGET_EXCEEDED_CODE, type TEngineConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRunRequest, AgentRuntime } from '../agents/agent-runtime.js';
import type { Queryable } from '../threads/thread-store.js';
import { findRefusal, hasBudgets } from './budget-refusal.js';
import { readPeriodSpend, type SpendScopes } from './budget-spend.js';

export type BudgetLedger = { db: Queryable; logger: Logger };

export function scopesOf(config: TEngineConfig): SpendScopes {
  return { agentId: config.agent.id, workspaceId: config.agent.workspace_id };
}

export function enforceBudgets(runtime: AgentRuntime, config: TEngineConfig, ledger: BudgetLedger): AgentRuntime {
  if (!hasBudgets(config.budgets)) return runtime;
  const scopes = scopesOf(config);
  async function* guarded(request: AgentRunRequest): AsyncIterable<BaseEvent> {
    // A database that fails does not stop runs (they go unrecorded then, and uncounted too).
    const refusal = await readPeriodSpend(ledger.db, scopes).then(
      (spend) => findRefusal(config.budgets, spend, new Date()),
      (error: unknown) => {
        ledger.logger.warn({ err: error }, 'could not read the budget spend; running without the check');
        return undefined;
      },
    );
    if (refusal === undefined) {
      yield* runtime.run(request);
      return;
    }
    const { threadId, runId } = request.input;
    yield { type: EventType.RUN_STARTED, threadId, runId } as BaseEvent;
    yield { type: EventType.RUN_ERROR, message: refusal.message, code: BUDGET_EXCEEDED_CODE } as BaseEvent;
  }
  return { ...runtime, run: guarded };
}
