// What a run answered, read from its AG-UI events as the engine stores them: the reply and tool calls
// scorers grade, its latency and tokens, and the code of a lost run's RUN_ERROR.
import { describe, expect, it } from '@jest/globals';
import { observeRun, parseArguments, readRunError } from './run-observation.js';

describe('what a run answered', () => {
  it('is the last assistant message’s text, its tool calls with parsed arguments, latency and tokens', () => {
    const events = [
      { type: 'RUN_STARTED' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Let me ' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'look.' },
      { type: 'TOOL_CALL_START', toolCallId: 't1', toolCallName: 'lookup' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: '{"order":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: ' 42}' },
      { type: 'TOOL_CALL_END', toolCallId: 't1' },
      { type: 'TOOL_CALL_START', toolCallId: 't2', toolCallName: 'raw' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 't2', delta: 'not json' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'It ships ' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'today.' },
      { type: 'RUN_FINISHED' },
    ].map((event) => JSON.stringify(event));
    expect(
      observeRun({
        events: [...events, 'not an event'],
        usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17, model_calls: 2 },
        startedAt: new Date('2026-01-01T00:00:00.000Z'),
        finishedAt: new Date('2026-01-01T00:00:01.250Z'),
      }),
    ).toEqual({
      reply: 'It ships today.',
      tool_calls: [
        { name: 'lookup', arguments: { order: 42 } },
        { name: 'raw', arguments: { value: 'not json' } },
      ],
      latency_ms: 1250,
      tokens: { input: 12, output: 5, total: 17 },
    });
  });

  it('has no reply, latency or tokens when the run recorded none', () => {
    expect(observeRun({ events: [], usage: null, startedAt: null, finishedAt: null })).toEqual({
      reply: null,
      tool_calls: [],
    });
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('[1]')).toEqual({ value: [1] });
  });

  it('reads the code of its last RUN_ERROR, which a lost run has in its events alone', () => {
    const lost = JSON.stringify({ type: 'RUN_ERROR', message: 'engine lost', code: 'engine_lost' });
    expect(readRunError([JSON.stringify({ type: 'RUN_STARTED' }), lost])).toEqual({
      message: 'engine lost',
      code: 'engine_lost',
    });
    expect(readRunError([])).toBeUndefined();
  });
});
