import { type BaseEvent, EventType } from '@ag-ui/core';
import { createLogger } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { AgentRunError } from '../agents/agent-runtime.js';
import { guardEventOrder } from './event-order-guard.js';

const RUN = { threadId: 't', runId: 'r' };
const logger = createLogger({ name: 'guard-test', level: 'silent' });
const started: BaseEvent = { type: EventType.RUN_STARTED, ...RUN };
const finished: BaseEvent = { type: EventType.RUN_FINISHED, ...RUN };
const text = (type: EventType, delta?: string): BaseEvent => ({
  type,
  messageId: 'm1',
  ...(delta === undefined ? {} : { delta }),
});

async function* from(events: BaseEvent[], failure?: Error): AsyncGenerator<BaseEvent> {
  for (const event of events) yield event;
  if (failure) throw failure;
}

async function collect(source: AsyncIterable<BaseEvent>, signal = new AbortController().signal) {
  const out: BaseEvent[] = [];
  for await (const event of guardEventOrder(source, RUN, signal, logger)) out.push(event);
  return out;
}

const types = (events: BaseEvent[]) => events.map((event) => event.type);

describe('guardEventOrder', () => {
  it('passes a well-formed run through unchanged', async () => {
    const run = [
      started,
      text(EventType.TEXT_MESSAGE_START),
      text(EventType.TEXT_MESSAGE_CONTENT, 'hi'),
      text(EventType.TEXT_MESSAGE_END),
      finished,
    ];
    expect(await collect(from(run))).toEqual(run);
  });

  it('drops empty deltas', async () => {
    const run = [
      started,
      text(EventType.TEXT_MESSAGE_START),
      text(EventType.TEXT_MESSAGE_CONTENT, ''),
      text(EventType.TEXT_MESSAGE_END),
      finished,
    ];
    expect(types(await collect(from(run)))).not.toContain(EventType.TEXT_MESSAGE_CONTENT);
  });

  it('stops at the first terminal event, so there is exactly one', async () => {
    const out = await collect(from([started, finished, { type: EventType.RUN_ERROR, message: 'late' }]));
    expect(types(out)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
  });

  it.each([
    ['content before the message started', [started, text(EventType.TEXT_MESSAGE_CONTENT, 'x')]],
    ['RUN_FINISHED while a message is open', [started, text(EventType.TEXT_MESSAGE_START), finished]],
    [
      'a tool call started twice',
      [
        started,
        { type: EventType.TOOL_CALL_START, toolCallId: 'c', toolCallName: 'f' },
        { type: EventType.TOOL_CALL_START, toolCallId: 'c', toolCallName: 'f' },
      ],
    ],
    ['an end without a start', [started, { type: EventType.TOOL_CALL_END, toolCallId: 'c' }]],
    ['RUN_STARTED twice', [started, started]],
  ])('turns %s into RUN_ERROR protocol_violation', async (_name, events) => {
    const out = await collect(from(events as BaseEvent[]));
    expect(out.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'protocol_violation' });
    expect(out.filter((event) => event.type === EventType.RUN_ERROR)).toHaveLength(1);
  });

  it('puts RUN_STARTED first when the agent forgot it', async () => {
    const out = await collect(from([text(EventType.TEXT_MESSAGE_START)]));
    expect(types(out)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
  });

  it('ends a stream that stops without a terminal event with RUN_ERROR', async () => {
    const out = await collect(from([started]));
    expect(out.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'protocol_violation' });
  });

  it("shows an AgentRunError's message as is, and hides its cause and the details of any other failure", async () => {
    const known = await collect(from([started], new AgentRunError('The model took too many steps.', 'max_steps')));
    expect(known.at(-1)).toEqual({
      type: EventType.RUN_ERROR,
      message: 'The model took too many steps.',
      code: 'max_steps',
    });
    const upstream = new AgentRunError('The model provider failed.', 'model_error', { cause: new Error('500 secret') });
    const caused = await collect(from([started], upstream));
    expect(caused.at(-1)).toEqual({
      type: EventType.RUN_ERROR,
      message: expect.stringMatching(/^The model provider failed \(error id [0-9a-f-]{36}\)\.$/),
      code: 'model_error',
    });
    const unknown = await collect(from([started], new Error('ECONNREFUSED 10.0.0.7:5432 at /srv/app/secret.js')));
    expect(unknown.at(-1)).toEqual({
      type: EventType.RUN_ERROR,
      message: expect.stringMatching(/^The agent failed while running \(error id [0-9a-f-]{36}\)\.$/),
      code: 'agent_error',
    });
  });

  it('adds RUN_STARTED before the error of an agent that failed at once', async () => {
    const out = await collect(from([], new AgentRunError('no', 'x')));
    expect(types(out)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
  });

  it("makes what the agent produced storable: U+FFFD for each NUL and lone surrogate, the agent's objects untouched", async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const snapshot = { 'k\u0000': ['v\ud800', { n: 1, at }], ok: 'fine 😀' };
    const state: BaseEvent = { type: EventType.STATE_SNAPSHOT, snapshot };
    const out = await collect(from([started, state, { type: EventType.RUN_ERROR, message: 'tool said \udc00' }]));
    expect(out).toEqual([
      started,
      { type: EventType.STATE_SNAPSHOT, snapshot: { 'k\uFFFD': ['v\uFFFD', { n: 1, at }], ok: 'fine 😀' } },
      { type: EventType.RUN_ERROR, message: 'tool said \uFFFD' },
    ]);
    expect(Object.keys(snapshot)).toEqual(['k\u0000', 'ok']);
    expect(out[0]).toBe(started);
  });

  it("makes an AgentRunError's message storable too", async () => {
    const out = await collect(from([started], new AgentRunError('The model said \u0000.', 'model_error')));
    expect(out.at(-1)).toEqual({ type: EventType.RUN_ERROR, message: 'The model said \uFFFD.', code: 'model_error' });
  });

  it('ends with RUN_ERROR an agent whose event nests too deep to be walked', async () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) deep = { n: deep };
    const out = await collect(from([started, { type: EventType.STATE_SNAPSHOT, snapshot: deep }]));
    expect(out.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'agent_error' });
  });

  it('says nothing more once the client is gone', async () => {
    const abort = new AbortController();
    abort.abort();
    expect(await collect(from([started], new Error('aborted')), abort.signal)).toEqual([started]);
  });
});
