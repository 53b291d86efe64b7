// A run seen as an A2A task: its stored AG-UI events, one at a time, become the task's reply artifact
// and the updates a streaming client gets, and its record's status becomes the task's state. The same
// fold serves GetTask (all stored events), SendMessage (the events as the run goes), the streams and
// a rejoin (the events so far in the task it starts with, the rest as updates), so they cannot differ.
import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
  type TaskStatus,
} from '@a2a-js/sdk';
import { EventType } from '@ag-ui/core';
import { A2A_TEXT_MODE } from '@agentplane/contracts';
import type { RunRecord, RunStatus } from '../runs/run-records.js';

/** The one artifact of a task: the agent's reply, its text deltas appended as they come. */
export const REPLY_ARTIFACT_ID = 'reply';

const STATES: Record<RunStatus, TaskState> = {
  pending: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  succeeded: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  // Stopped by a newer run on its thread: the task was cancelled, its messages kept in the thread.
  interrupted: TaskState.TASK_STATE_CANCELED,
  input_required: TaskState.TASK_STATE_INPUT_REQUIRED,
};

export const taskStateOf = (status: RunStatus): TaskState => STATES[status];

/** When a run's status last changed: what its task's status timestamp says. */
export const statusChangedAt = (run: Pick<RunRecord, 'created_at' | 'started_at' | 'finished_at'>): Date =>
  run.finished_at ?? run.started_at ?? run.created_at;

/** An AG-UI interrupt as a run's RUN_FINISHED names it; only what the status message tells is read. */
type PendingInterrupt = { id?: unknown; reason?: unknown; message?: unknown; metadata?: { toolName?: unknown } };

/** The task's identity: the run it is. */
export type TaskRun = Pick<RunRecord, 'id' | 'thread_id'>;

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: A2A_TEXT_MODE,
});

const dataPart = (data: unknown): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

function agentMessage(run: TaskRun, parts: Part[], messageId: string): Message {
  return {
    messageId,
    contextId: run.thread_id,
    taskId: run.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function describeInterrupt(interrupt: PendingInterrupt): string {
  const tool = typeof interrupt.metadata?.toolName === 'string' ? ` for the tool "${interrupt.metadata.toolName}"` : '';
  const why = typeof interrupt.message === 'string' ? `: ${interrupt.message}` : '';
  return `"${String(interrupt.id)}" (${String(interrupt.reason ?? 'input')}${tool})${why}`;
}

export type TaskFold = {
  /** Takes in one stored event (its SSE data payload); returns what a streaming client is sent for it. */
  apply: (data: string) => StreamResponse[];
  /**
   * The task as folded so far, in the state of `status` (reached at `at`, now by default); the reply in
   * its history unless `historyLength` is 0.
   */
  task: (
    status: RunStatus,
    options?: { error?: string | null; historyLength?: number | undefined; at?: Date | undefined },
  ) => Task;
  /** The update that tells a streaming client the task's state. */
  statusUpdate: (status: RunStatus, error?: string | null) => StreamResponse;
};

export function createTaskFold(run: TaskRun): TaskFold {
  let reply = '';
  let chunks = 0;
  let started = false;
  let interrupts: PendingInterrupt[] = [];

  const replyArtifact = (text: string): Artifact => ({
    artifactId: REPLY_ARTIFACT_ID,
    name: 'reply',
    description: "The agent's reply",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  });

  // What the state needs said: which approvals an input-required task waits for, why a task failed.
  const statusMessage = (status: RunStatus, error?: string | null): Message | undefined => {
    if (status === 'input_required') {
      const text =
        interrupts.length === 0
          ? 'The run is waiting for input.'
          : `Waiting for approval of ${interrupts.map(describeInterrupt).join(', ')}. Answer on this context with a data part {"resume": [{"interruptId": "…", "status": "resolved", "payload": {"approved": true}}]}.`;
      return agentMessage(run, [textPart(text), dataPart({ interrupts })], `${run.id}:input-required`);
    }
    if (error) return agentMessage(run, [textPart(error)], `${run.id}:status`);
    return undefined;
  };

  const status = (state: RunStatus, error?: string | null, at = new Date()): TaskStatus => ({
    state: taskStateOf(state),
    message: statusMessage(state, error),
    timestamp: at.toISOString(),
  });

  const statusUpdate = (state: RunStatus, error?: string | null): StreamResponse => ({
    payload: {
      $case: 'statusUpdate',
      value: { taskId: run.id, contextId: run.thread_id, status: status(state, error), metadata: undefined },
    },
  });

  const apply = (data: string): StreamResponse[] => {
    const event = JSON.parse(data) as { type?: string; delta?: unknown; outcome?: unknown };
    if (event.type === EventType.RUN_STARTED && !started) {
      started = true;
      return [statusUpdate('running')];
    }
    const isText = event.type === EventType.TEXT_MESSAGE_CONTENT || event.type === EventType.TEXT_MESSAGE_CHUNK;
    if (isText && typeof event.delta === 'string' && event.delta !== '') {
      reply += event.delta;
      const append = chunks++ > 0;
      const artifact = replyArtifact(event.delta);
      return [
        {
          payload: {
            $case: 'artifactUpdate',
            value: {
              taskId: run.id,
              contextId: run.thread_id,
              artifact,
              append,
              lastChunk: false,
              metadata: undefined,
            },
          },
        },
      ];
    }
    if (event.type === EventType.RUN_FINISHED) {
      const outcome = event.outcome as { type?: unknown; interrupts?: unknown } | undefined;
      if (outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts)) interrupts = outcome.interrupts;
    }
    return [];
  };

  const task: TaskFold['task'] = (state, options = {}) => ({
    id: run.id,
    contextId: run.thread_id,
    status: status(state, options.error, options.at),
    artifacts: reply === '' ? [] : [replyArtifact(reply)],
    history:
      options.historyLength === 0 || reply === '' ? [] : [agentMessage(run, [textPart(reply)], `${run.id}:reply`)],
    metadata: undefined,
  });

  return { apply, task, statusUpdate };
}
