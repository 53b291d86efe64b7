// ListTasks: the caller's runs as tasks, newest first, a bounded page at a time. A task in the list
// carries its state, not its reply: that would read every listed run's events (GetTask has it).
import { type ListTasksRequest, type ListTasksResponse, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { RUN_STATUSES, ZAguiId } from '@agentplane/contracts';
import { listCallersRuns, type RunCursor } from '../runs/run-list.js';
import { aguiThreadKey } from '../threads/agui-threads.js';
import type { A2aCall } from './a2a-request-handler.js';
import { createTaskFold, statusChangedAt, taskStateOf } from './task-fold.js';

export const DEFAULT_PAGE_SIZE = 50;
/** The most tasks a page holds; a larger pageSize is cut to it. */
export const MAX_PAGE_SIZE = 100;

function pageSizeOf(asked: number | undefined): number {
  if (asked === undefined || asked === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(asked) || asked < 0) throw new RequestMalformedError('pageSize must be a positive integer.');
  return Math.min(asked, MAX_PAGE_SIZE);
}

// A page token is the last task of the page before, opaque to the client.
const encodeToken = (cursor: RunCursor) =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');

function decodeToken(token: string): RunCursor | undefined {
  if (token === '') return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt)) && ZAguiId.safeParse(id).success) {
      return { createdAt, id: id as string };
    }
  } catch {
    // Not a token of ours: refused below.
  }
  throw new RequestMalformedError('pageToken is not one this engine gave.');
}

function changedAfterOf(timestamp: string | undefined): Date | undefined {
  if (timestamp === undefined || timestamp === '') return undefined;
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) throw new RequestMalformedError('statusTimestampAfter is not a timestamp.');
  return date;
}

function threadKeyOf(call: A2aCall, contextId: string): string | undefined {
  if (contextId === '') return undefined;
  if (!ZAguiId.safeParse(contextId).success) throw new RequestMalformedError('contextId is not a valid id.');
  return aguiThreadKey(call.store.agentId, call.caller, contextId);
}

export async function listTasks(call: A2aCall, params: ListTasksRequest): Promise<ListTasksResponse> {
  const limit = pageSizeOf(params.pageSize);
  const state = params.status;
  const filter = {
    threadKey: threadKeyOf(call, params.contextId),
    statuses:
      state === TaskState.TASK_STATE_UNSPECIFIED ? undefined : RUN_STATUSES.filter((s) => taskStateOf(s) === state),
    changedAfter: changedAfterOf(params.statusTimestampAfter),
  };
  const page = await listCallersRuns(call.store.pool, call.store.agentId, call.caller, {
    filter,
    after: decodeToken(params.pageToken),
    limit,
  });
  return {
    tasks: page.runs.map((run) =>
      createTaskFold(run).task(run.status, { error: run.error, historyLength: 0, at: statusChangedAt(run) }),
    ),
    nextPageToken: page.next === undefined ? '' : encodeToken(page.next),
    pageSize: limit,
    totalSize: page.total,
  };
}
