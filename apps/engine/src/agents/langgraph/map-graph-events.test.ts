// The mapper on recorded LangGraph.js streamEvents (v2): each fixture in fixtures/stream-events is the run
// of a real compiled graph (its `recordedFrom` says which), trimmed to the fields the mapper reads.
import { readFileSync } from 'node:fs';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import { createGraphEventMapper, type GraphStreamEvent } from './map-graph-events.js';

const RECORDINGS = new URL('./fixtures/stream-events/', import.meta.url);
const ALL_RECORDINGS = [
  'text-reply',
  'tool-call',
  'unstreamed-model',
  'written-reply',
  'internal-model',
  'late-tool-name',
  'direct-tool',
  'parallel-steps',
  'interrupt',
  'cut-off',
];
// The ids the mapper makes up (randomUUID) for messages that it cannot take from LangGraph.
const GENERATED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function loadRecording(name: string): GraphStreamEvent[] {
  const text = readFileSync(new URL(`${name}.json`, RECORDINGS), 'utf8');
  return (JSON.parse(text) as { events: GraphStreamEvent[] }).events;
}

/** Generated ids become `generated-1`, `generated-2`… in order of appearance, so runs compare exactly. */
function labelGeneratedIds(events: BaseEvent[]): BaseEvent[] {
  const labels = new Map<string, string>();
  const label = (id: unknown) => {
    if (typeof id !== 'string' || !GENERATED_ID.test(id)) return id;
    if (!labels.has(id)) labels.set(id, `generated-${labels.size + 1}`);
    return labels.get(id);
  };
  return events.map((event) => {
    const labelled: Record<string, unknown> = { ...event };
    for (const key of ['messageId', 'parentMessageId']) if (key in labelled) labelled[key] = label(labelled[key]);
    return labelled as BaseEvent;
  });
}

/** What the mapper emits for the whole recording (`streamed`), then what finish() closes (`closed`). */
function mapRecording(recording: GraphStreamEvent[]) {
  const mapper = createGraphEventMapper();
  const streamed = recording.flatMap((event) => [...mapper.map(event)]);
  const closed = [...mapper.finish()];
  const labelled = labelGeneratedIds([...streamed, ...closed]);
  return { streamed: labelled.slice(0, streamed.length), closed: labelled.slice(streamed.length) };
}

const started = (stepName: string) => ({ type: EventType.STEP_STARTED, stepName });
const finished = (stepName: string) => ({ type: EventType.STEP_FINISHED, stepName });
const textMessage = (messageId: string, ...deltas: string[]) => [
  { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
  ...deltas.map((delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta })),
  { type: EventType.TEXT_MESSAGE_END, messageId },
];
const wholeToolCall = (toolCallId: string, args: string, parentMessageId?: string) => [
  {
    type: EventType.TOOL_CALL_START,
    toolCallId,
    toolCallName: 'echo',
    ...(parentMessageId === undefined ? {} : { parentMessageId }),
  },
  { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args },
  { type: EventType.TOOL_CALL_END, toolCallId },
];
const toolResult = (messageId: string, toolCallId: string, content: string) => ({
  type: EventType.TOOL_CALL_RESULT,
  messageId,
  toolCallId,
  content,
  role: 'tool',
});

describe('mapping LangGraph streamEvents to AG-UI events', () => {
  it('streams a model reply as one text message inside its node step, without empty deltas or a __start__ step', () => {
    const recording = loadRecording('text-reply');
    // What the recording holds that must not show: LangGraph's input node and the model's empty chunks.
    expect(recording.map((event) => event.name)).toContain('__start__');
    expect(recording.filter((event) => event.event === 'on_chat_model_stream')).toHaveLength(5);

    const { streamed, closed } = mapRecording(recording);
    expect(streamed).toEqual([
      started('agent'),
      ...textMessage('generated-1', 'Hel', 'lo ', 'there'),
      finished('agent'),
    ]);
    expect(closed).toEqual([]);
  });

  it("streams a tool call's arguments under the message that made it, then the tool's result in the tools step", () => {
    const { streamed, closed } = mapRecording(loadRecording('tool-call'));
    expect(streamed).toEqual([
      started('agent'),
      { type: EventType.TEXT_MESSAGE_START, messageId: 'generated-1', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'generated-1', delta: 'Let me check.' },
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: 'call_echo',
        toolCallName: 'echo',
        parentMessageId: 'generated-1',
      },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call_echo', delta: '{"mess' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call_echo', delta: 'age":"hi"}' },
      { type: EventType.TEXT_MESSAGE_END, messageId: 'generated-1' },
      { type: EventType.TOOL_CALL_END, toolCallId: 'call_echo' },
      finished('agent'),
      started('tools'),
      toolResult('generated-2', 'call_echo', 'Echo: hi'),
      finished('tools'),
      started('agent'),
      ...textMessage('generated-3', 'It said hi.'),
      finished('agent'),
    ]);
    expect(closed).toEqual([]);
  });

  it('sends the reply of a model that does not stream whole when the model ends, and not again when its node returns it', () => {
    const { streamed, closed } = mapRecording(loadRecording('unstreamed-model'));
    expect(streamed).toEqual([
      started('agent'),
      ...textMessage('generated-1', 'Looking it up.'),
      ...wholeToolCall('call_whole', '{"message":"whole"}', 'generated-1'),
      finished('agent'),
      started('tools'),
      toolResult('generated-2', 'call_whole', 'Echo: whole'),
      finished('tools'),
    ]);
    expect(closed).toEqual([]);
  });

  it('sends a message a node writes itself when the node ends, with its tool call, and the result once the tool ran', () => {
    const { streamed, closed } = mapRecording(loadRecording('written-reply'));
    expect(streamed).toEqual([
      started('plan'),
      ...textMessage('generated-1', 'I will echo it.'),
      ...wholeToolCall('call_written', '{"message":"written"}', 'generated-1'),
      finished('plan'),
      started('tools'),
      toolResult('generated-2', 'call_written', 'Echo: written'),
      finished('tools'),
    ]);
    expect(closed).toEqual([]);
  });

  it('keeps the tokens of a model tagged nostream out of the reply', () => {
    const { streamed, closed } = mapRecording(loadRecording('internal-model'));
    expect(streamed).toEqual([
      started('classify'),
      finished('classify'),
      started('respond'),
      ...textMessage('generated-1', 'Good question.'),
      finished('respond'),
    ]);
    expect(closed).toEqual([]);
  });

  it('holds back the arguments streamed before the name of a call, then sends them in one piece', () => {
    const { streamed, closed } = mapRecording(loadRecording('late-tool-name'));
    expect(streamed).toEqual([
      started('agent'),
      ...wholeToolCall('call_late', '{"message":"late"}', 'generated-1'),
      finished('agent'),
      started('tools'),
      toolResult('generated-2', 'call_late', 'Echo: late'),
      finished('tools'),
    ]);
    expect(closed).toEqual([]);
  });

  it('announces a tool that a node calls itself, with the arguments it was given, before its result', () => {
    const recording = loadRecording('direct-tool');
    // A call made without a tool-call id is known by the id of its run.
    const plainRun = recording.find((event) => event.event === 'on_tool_end')?.run_id;
    const { streamed, closed } = mapRecording(recording);
    expect(streamed).toEqual([
      started('lookup'),
      ...wholeToolCall(`call_${plainRun}`, '{"message":"plain"}'),
      toolResult('generated-1', `call_${plainRun}`, 'Echo: plain'),
      ...wholeToolCall('call_direct', '{"message":"with id"}'),
      toolResult('generated-2', 'call_direct', 'Echo: with id'),
      finished('lookup'),
    ]);
    expect(closed).toEqual([]);
  });

  it('makes the parallel runs of one node (Send) one step, with the message of each run under its own id', () => {
    const { streamed, closed } = mapRecording(loadRecording('parallel-steps'));
    expect(streamed).toEqual([
      started('work'),
      ...textMessage('done-a', 'Done: a'),
      ...textMessage('done-b', 'Done: b'),
      finished('work'),
    ]);
    expect(closed).toEqual([]);
  });

  it('leaves the step of a node stopped by interrupt() open until finish() closes it', () => {
    const { streamed, closed } = mapRecording(loadRecording('interrupt'));
    expect(streamed).toEqual([started('ask')]);
    expect(closed).toEqual([finished('ask')]);
  });

  it('closes the text message, the tool call and the step that a cut-off run left open, once each', () => {
    const { streamed, closed } = mapRecording(loadRecording('cut-off'));
    expect(streamed).toEqual([
      started('agent'),
      { type: EventType.TEXT_MESSAGE_START, messageId: 'generated-1', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'generated-1', delta: 'Let me check.' },
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: 'call_echo',
        toolCallName: 'echo',
        parentMessageId: 'generated-1',
      },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call_echo', delta: '{"mess' },
    ]);
    expect(closed).toEqual([
      { type: EventType.TEXT_MESSAGE_END, messageId: 'generated-1' },
      { type: EventType.TOOL_CALL_END, toolCallId: 'call_echo' },
      finished('agent'),
    ]);
  });

  it.each(ALL_RECORDINGS)(
    'opens and closes each text message and tool call of %s once, with no empty delta',
    (name) => {
      const { streamed, closed } = mapRecording(loadRecording(name));
      const events = [...streamed, ...closed] as (BaseEvent & Record<string, unknown>)[];
      const idsOf = (...types: EventType[]) =>
        events.filter((event) => types.includes(event.type)).map((event) => event.messageId ?? event.toolCallId);
      const opened = idsOf(EventType.TEXT_MESSAGE_START, EventType.TOOL_CALL_START);
      expect(new Set(opened).size).toBe(opened.length);
      expect(idsOf(EventType.TEXT_MESSAGE_END, EventType.TOOL_CALL_END).sort()).toEqual(opened.sort());
      expect(events.filter((event) => event.delta === '')).toEqual([]);
    },
  );
});

describe('usage', () => {
  it("reports each finished model call's usage_metadata, streamed or not", () => {
    const reported: unknown[] = [];
    const mapper = createGraphEventMapper((usage) => reported.push(usage));
    const end = (runId: string, output: unknown, tags: string[] = []): GraphStreamEvent => ({
      event: 'on_chat_model_end',
      name: 'ChatOpenAI',
      run_id: runId,
      tags,
      data: { output },
    });
    const events = [
      end('m1', { content: 'hi', usage_metadata: { input_tokens: 12, output_tokens: 3, total_tokens: 15 } }),
      end('m2', { content: 'x', usage_metadata: { input_tokens: 5, output_tokens: 1 } }, ['langsmith:nostream']),
      end('m3', { content: 'no count' }),
      end('m4', { usage_metadata: { input_tokens: 'many', output_tokens: 1 } }),
    ];
    for (const event of events) [...mapper.map(event)];
    expect(reported).toEqual([
      { inputTokens: 12, outputTokens: 3 },
      { inputTokens: 5, outputTokens: 1 },
    ]);
  });
});
