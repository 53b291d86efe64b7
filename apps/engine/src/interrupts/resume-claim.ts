// The `resume` of a run of the built-in LLM agent, checked and claimed before the run starts, so that
// everything wrong with it is an HTTP error: an interrupt unknown to the caller's thread (422
// `unknown-interrupt`, or 404 when the caller has no such thread: another subject's), expired (409
// `interrupt-expired`) or answered already (409 `interrupt-answered`, also for the loser of two runs
// racing to answer it), a malformed answer or edited arguments its tool's input schema refuses (422
// `invalid-resume`). The claim is one UPDATE (interrupt-records.ts); a run refused after it gives its
// claims back.
import type { ResumeEntry, RunAgentInput } from '@ag-ui/core';
import { AppError } from '@agentplane/server-kit';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AgentTool } from '../agents/agent-runtime.js';
import type { RunStore } from '../runs/recorded-run.js';
import { threadExists } from '../threads/thread-queries.js';
import { withTransaction } from '../threads/thread-store.js';
import { claimInterrupts, findInterrupts, type InterruptRow, releaseInterrupts } from './interrupt-records.js';
import { readApprovalAnswer } from './tool-approval.js';

const validators = new AjvJsonSchemaValidator();

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', 'The resume cannot answer these interrupts.', {
    type: 'invalid-resume',
    errors: [{ path, message }],
  });

function checkAnswer(entry: ResumeEntry, index: number, row: InterruptRow, tools: readonly AgentTool[]): void {
  const path = `resume[${index}]`;
  if (row.answered) {
    throw new AppError('conflict', `The interrupt "${row.id}" was answered already.`, { type: 'interrupt-answered' });
  }
  if (row.expired) {
    throw new AppError('conflict', `The interrupt "${row.id}" expired; it can no longer be answered.`, {
      type: 'interrupt-expired',
    });
  }
  const answer = readApprovalAnswer(entry);
  if ('invalid' in answer) throw invalid(`${path}.payload`, answer.invalid);
  if (!answer.approved || answer.editedArgs === undefined) return;
  const parameters = tools.find((tool) => tool.name === row.tool_name)?.parameters;
  if (parameters === undefined) return;
  const checked = validators.getValidator(parameters)(answer.editedArgs);
  if (!checked.valid) throw invalid(`${path}.payload.editedArgs`, checked.errorMessage);
}

export type ResumeClaim = { release: () => Promise<void> } | undefined;

/**
 * Claims the interrupts `input.resume` answers for `input.runId` on the thread `threadKey`; nothing to
 * claim without a resume. Only the LLM agent's interrupts are ours: a LangGraph graph's live in its
 * own checkpoints, and it answers them itself.
 */
export async function claimResume(
  store: RunStore,
  agent: { framework: string; tools: readonly AgentTool[] },
  input: RunAgentInput,
  threadKey: string,
): Promise<ResumeClaim> {
  const entries = input.resume ?? [];
  if (entries.length === 0 || agent.framework !== 'LLM') return undefined;
  const { tools } = agent;
  const ids = entries.map((entry) => entry.interruptId);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) throw invalid('resume', `answers the interrupt "${twice}" twice`);
  const { pool, agentId } = store;
  const rows = await findInterrupts(pool, agentId, threadKey, ids);
  const missing = entries.findIndex((entry) => !rows.some((row) => row.id === entry.interruptId));
  if (missing !== -1) {
    if (!(await threadExists(pool, agentId, threadKey))) throw new AppError('not_found', 'No such thread.');
    throw new AppError('validation_failed', `This thread has no interrupt "${ids[missing]}".`, {
      type: 'unknown-interrupt',
      errors: [{ path: `resume[${missing}].interruptId`, message: 'names no interrupt of this thread' }],
    });
  }
  entries.forEach((entry, index) => {
    checkAnswer(entry, index, rows.find((row) => row.id === entry.interruptId) as InterruptRow, tools);
  });
  const answers = entries.map((entry) => ({
    id: entry.interruptId,
    answer: { status: entry.status, ...(entry.payload === undefined ? {} : { payload: entry.payload }) },
  }));
  await withTransaction(pool, async (client) => {
    // Between the checks and here, another run answered one, or it expired: all or nothing.
    if ((await claimInterrupts(client, agentId, input.runId, answers)) < answers.length) {
      throw new AppError('conflict', 'Another run answered these interrupts first, or they expired meanwhile.', {
        type: 'interrupt-answered',
      });
    }
  });
  return { release: () => releaseInterrupts(pool, agentId, input.runId) };
}

/** Runs `start` with the resume claimed, giving the claim back if the run is refused. */
export async function withResumeClaimed<T>(claim: ResumeClaim, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await claim?.release();
    throw error;
  }
}
