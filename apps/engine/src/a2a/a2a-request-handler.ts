// The A2A methods over the engine's runs, for one JSON-RPC request (the SDK's A2ARequestHandler, which
// its JsonRpcTransportHandler calls). A task is a run (taskId = run id) on a thread (contextId =
// thread id), both scoped to the caller; a message is queued as a run of source `a2a` on its thread,
// and any replica runs it (run-queue.ts); everything the methods tell comes from the run's record and
// its stored events, so a task reads the same on every replica and after a cut stream. The SDK's
// DefaultRequestHandler is not used: it runs an executor in this process and streams through an
// in-memory bus per task, which another replica, or a client back after a cut, could not rejoin.
import { randomUUID } from 'node:crypto';
import type {
  AgentCard,
  CancelTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { AppError, type Logger } from '@agentplane/server-kit';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import type { RunStore } from '../runs/recorded-run.js';
import { requireEventLog } from '../runs/rejoin-handler.js';
import { requestCancel } from '../runs/run-control-records.js';
import { REPLAY_PAGE } from '../runs/run-follow-reads.js';
import { queueRun } from '../runs/run-handler.js';
import { configuredMultitaskStrategy } from '../runs/run-input.js';
import { findRun, isFinal, type RunRecord } from '../runs/run-records.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import { followTask } from './follow-task.js';
import { runInputOf } from './message-input.js';
import { createTaskFold, statusChangedAt, type TaskFold, type TaskRun } from './task-fold.js';
import { listTasks } from './task-list.js';

/** Who asks, on which config, and until when: what one JSON-RPC request brings. */
export type A2aCall = {
  store: RunStore;
  snapshot: AgentSnapshot;
  card: AgentCard;
  caller: ThreadCaller | undefined;
  /** Aborts when the client leaves: a stream stops following then (the run goes on). */
  signal: AbortSignal;
  log: Logger;
};

const NO_TASK = 'No task with this id, or not one of the caller.';

async function findTask(call: A2aCall, taskId: string): Promise<RunRecord> {
  if (taskId.trim() === '') throw new RequestMalformedError('The task id is missing.');
  const run = await findRun(call.store.pool, call.store.agentId, taskId, call.caller);
  // Another caller's task is as unknown as one that never was.
  if (run === undefined) throw new TaskNotFoundError(NO_TASK);
  return run;
}

/** Folds the run's stored events from the start; returns the seq of the last one. */
async function foldStoredEvents(call: A2aCall, runId: string, fold: TaskFold): Promise<number> {
  let after = 0;
  for (;;) {
    const events = await call.store.follows.events(runId, after);
    for (const event of events) {
      fold.apply(event.data);
      after = event.seq;
    }
    if (events.length < REPLAY_PAGE) return after;
  }
}

/** Where a message goes: a new task on its context (a new thread without one), or on from an input-required task. */
async function threadOfMessage(call: A2aCall, message: Message): Promise<string> {
  if (message.taskId === '') return message.contextId === '' ? randomUUID() : message.contextId;
  const task = await findTask(call, message.taskId);
  if (message.contextId !== '' && message.contextId !== task.thread_id) {
    throw new RequestMalformedError('The message names a task of another context.');
  }
  if (task.status !== 'input_required') {
    throw new UnsupportedOperationError(
      'Only a task waiting for input takes a message; send a new message on its contextId to go on.',
    );
  }
  return task.thread_id;
}

/** Queues the message as a run of source `a2a`: a new task, in the state `submitted`. */
async function startTask(call: A2aCall, params: SendMessageRequest): Promise<TaskRun> {
  const { message } = params;
  if (message === undefined) throw new RequestMalformedError('The request has no message.');
  const { store, snapshot } = call;
  if (snapshot.runtime === undefined)
    throw new AppError('service_unavailable', describeLoadFailure(snapshot.loadFailure));
  // The task is followed through its stored events, wherever it runs.
  requireEventLog(store, 'A2A tasks are unavailable');
  const run = { id: randomUUID(), thread_id: await threadOfMessage(call, message) };
  const input = runInputOf(message, run.thread_id, run.id);
  const request = {
    input,
    onDisconnect: 'continue' as const,
    multitaskStrategy: configuredMultitaskStrategy(snapshot.config),
  };
  await queueRun(store, snapshot, request, call.caller, 'a2a');
  return run;
}

/** The task of a run whose events the fold has taken in, in its record's state. */
const taskOf = (run: RunRecord, fold: TaskFold, historyLength?: number): Task =>
  fold.task(run.status, { error: run.error, historyLength, at: statusChangedAt(run) });

async function readTask(call: A2aCall, runId: string, fold: TaskFold, historyLength?: number): Promise<Task> {
  return taskOf(await findTask(call, runId), fold, historyLength);
}

export function createA2aRequestHandler(call: A2aCall): A2ARequestHandler {
  const { store, caller, signal, log } = call;
  const follow = (run: TaskRun, fold: TaskFold, after: number) =>
    followTask({ store, runId: run.id, caller, after, fold, signal, log });
  const drain = async (updates: AsyncGenerator<StreamResponse>) => {
    for await (const _update of updates);
  };

  return {
    getAgentCard: async () => call.card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card.');
    },

    sendMessage: async (params) => {
      const run = await startTask(call, params);
      const fold = createTaskFold(run);
      if (params.configuration?.returnImmediately === true) return fold.task('pending');
      await drain(follow(run, fold, 0));
      return readTask(call, run.id, fold, params.configuration?.historyLength);
    },

    async *sendMessageStream(params) {
      const run = await startTask(call, params);
      const fold = createTaskFold(run);
      yield { payload: { $case: 'task', value: fold.task('pending') } };
      yield* follow(run, fold, 0);
      if (signal.aborted) return;
      const record = await findTask(call, run.id);
      yield fold.statusUpdate(record.status, record.error);
    },

    getTask: async (params) => {
      const run = await findTask(call, params.id);
      const fold = createTaskFold(run);
      await foldStoredEvents(call, run.id, fold);
      return taskOf(run, fold, params.historyLength);
    },

    listTasks: (params: ListTasksRequest): Promise<ListTasksResponse> => listTasks(call, params),

    // A waiting run is cancelled at once; a running one is asked to stop, and the answer waits until it has.
    cancelTask: async (params: CancelTaskRequest) => {
      const run = await findTask(call, params.id);
      const outcome = isFinal(run.status) ? 'over' : await requestCancel(store.pool, store.agentId, run.id);
      if (outcome === 'over') throw new TaskNotCancelableError('The task is already over.');
      const fold = createTaskFold(run);
      await drain(follow(run, fold, 0));
      return readTask(call, run.id, fold);
    },

    // Rejoins the task with nothing lost: the task as its stored events make it so far, then the
    // updates of the events stored after them, until it ends.
    async *resubscribe(params: SubscribeToTaskRequest) {
      const run = await findTask(call, params.id);
      if (isFinal(run.status)) {
        throw new UnsupportedOperationError(`The task is over (${run.status}); read it with GetTask.`);
      }
      const fold = createTaskFold(run);
      const after = await foldStoredEvents(call, run.id, fold);
      yield { payload: { $case: 'task', value: taskOf(run, fold) } };
      yield* follow(run, fold, after);
      if (signal.aborted) return;
      const record = await findTask(call, run.id);
      yield fold.statusUpdate(record.status, record.error);
    },

    createTaskPushNotificationConfig: refusePush,
    getTaskPushNotificationConfig: refusePush,
    listTaskPushNotificationConfigs: refusePush,
    deleteTaskPushNotificationConfig: refusePush,
  };
}

async function refusePush(): Promise<never> {
  throw new PushNotificationNotSupportedError('This agent sends no push notifications.');
}
