// The fold that makes a task of a run's stored events: the reply as one artifact appended to, and the
// status message of a task waiting for input naming each pending approval.
import { TaskState } from '@a2a-js/sdk';
import { EventType } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import { createTaskFold } from './task-fold.js';

const run = { id: 'run-1', thread_id: 'thread-1' };
const event = (data: Record<string, unknown>) => JSON.stringify(data);

const textOf = (parts: { content?: { $case: string; value?: unknown } | undefined }[] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

describe('a task fold', () => {
  it('streams working once, then each text delta as a chunk of the one reply artifact', () => {
    const fold = createTaskFold(run);
    const started = fold.apply(event({ type: EventType.RUN_STARTED, threadId: 'thread-1', runId: 'run-1' }));
    expect(started.map((update) => update.payload?.$case)).toEqual(['statusUpdate']);
    expect(fold.apply(event({ type: EventType.RUN_STARTED }))).toEqual([]);
    const chunks = ['Hel', 'lo'].flatMap((delta) =>
      fold.apply(event({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta })),
    );
    expect(chunks.map((update) => update.payload?.$case === 'artifactUpdate' && update.payload.value.append)).toEqual([
      false,
      true,
    ]);
    expect(fold.apply(event({ type: EventType.TOOL_CALL_START, toolCallId: 't', toolCallName: 'x' }))).toEqual([]);
    const task = fold.task('succeeded', { at: new Date('2026-01-01T00:00:00.000Z') });
    expect(task).toMatchObject({ id: 'run-1', contextId: 'thread-1' });
    expect(task.status).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, timestamp: '2026-01-01T00:00:00.000Z' });
    expect(textOf(task.artifacts[0]?.parts)).toBe('Hello');
    expect(textOf(task.history[0]?.parts)).toBe('Hello');
    expect(fold.task('succeeded', { historyLength: 0 }).history).toEqual([]);
  });

  it('says which approval an input-required task waits for: the interrupt, its reason and its tool', () => {
    const fold = createTaskFold(run);
    const interrupt = {
      id: 'int-7',
      reason: 'tool_approval',
      toolCallId: 'call-1',
      message: 'Approve the refund?',
      metadata: { toolName: 'issue_refund', arguments: { amount: 30 } },
    };
    fold.apply(event({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt', interrupts: [interrupt] } }));
    const { status } = fold.task('input_required');
    expect(status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(status?.message?.parts)).toContain(
      'Waiting for approval of "int-7" (tool_approval for the tool "issue_refund"): Approve the refund?.',
    );
    const data = status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
    expect(data?.value).toEqual({ interrupts: [interrupt] });
  });

  it('tells a failed task why, and maps every run status to a task state', () => {
    const fold = createTaskFold(run);
    expect(textOf(fold.task('failed', { error: 'model unreachable' }).status?.message?.parts)).toBe(
      'model unreachable',
    );
    const states = (
      ['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted', 'input_required'] as const
    ).map((status) => fold.task(status).status?.state);
    expect(states).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_CANCELED,
      TaskState.TASK_STATE_CANCELED,
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
  });
});
