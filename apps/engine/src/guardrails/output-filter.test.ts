// The streamed output filter: whatever the split of a reply into deltas, a banned phrase never leaves
// the filter, a redaction across deltas gives exactly the redacted text, and anything else passes
// unchanged, in order, held back by at most holdBackChars.

import { transformChunks, verifyEvents } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { GUARDRAIL_BLOCKED_CODE } from '@agentplane/contracts';
import { describe, expect, it } from '@jest/globals';
import { from, lastValueFrom, toArray } from 'rxjs';
import {
  collectEvents,
  deltasOf,
  engineGuardrail,
  RUN,
  recordHits,
  runEvents,
  splitAt,
  yieldAll,
} from '../testing/guardrail-rules.js';
import { compileGuardrails } from './compile-guardrails.js';
import type { AgentGuardrails } from './guardrail-types.js';

const BANNED = 'insider tip';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function compile(rules: Parameters<typeof engineGuardrail>[0]): AgentGuardrails {
  const guardrails = compileGuardrails([engineGuardrail(rules, 'Compliance')], {});
  if (guardrails === undefined) throw new Error('no guardrails');
  return guardrails;
}

const blockBanned = () =>
  compile([{ name: 'topics', kind: 'pattern', phrases: [BANNED], position: 'output', action: 'block' }]);

async function filter(guardrails: AgentGuardrails, events: BaseEvent[]) {
  const { hits, report } = recordHits();
  const out = await collectEvents(guardrails.filterOutput(yieldAll(events), report));
  return { out, hits };
}

/** What a client that verifies the AG-UI order makes of the events: throws on a violation. */
function verify(events: BaseEvent[]): Promise<BaseEvent[]> {
  return lastValueFrom(from(events).pipe(transformChunks(), verifyEvents(), toArray()));
}

/** Every concatenation of consecutive emitted deltas: none may contain the phrase. */
function expectNeverSent(deltas: string[], phrase: string) {
  const lower = phrase.toLowerCase();
  expect(deltas.join('').toLowerCase()).not.toContain(lower);
  for (const delta of deltas) expect(delta.toLowerCase()).not.toContain(lower);
}

/** Every way of cutting a text into two and into three pieces inside the phrase at `at`. */
function splits(at: number, length: number): number[][] {
  const cuts: number[][] = [];
  for (let first = at; first <= at + length; first++) {
    cuts.push([first]);
    for (let second = first + 1; second <= at + length; second++) cuts.push([first, second]);
  }
  return cuts;
}

describe('filterOutput', () => {
  it('leaves the events alone when no rule checks the output', async () => {
    const guardrails = compile([
      { name: 'topics', kind: 'pattern', phrases: [BANNED], position: 'input', action: 'block' },
    ]);
    const events = yieldAll(runEvents(['a']));
    expect(guardrails.filterOutput(events, () => {})).toBe(events);
    expect(guardrails.holdBackChars).toBe(0);
  });

  it('blocks a phrase split at every position into two and three deltas, in text and in tool-call arguments', async () => {
    const guardrails = blockBanned();
    const reply = `Here is an ${BANNED.toUpperCase()} for you`;
    const at = reply.indexOf(BANNED.toUpperCase());
    for (const cuts of splits(at, BANNED.length)) {
      for (const events of [runEvents(splitAt(reply, cuts)), runEvents([], splitAt(`{"q":"${reply}"}`, cuts))]) {
        const { out, hits } = await filter(guardrails, events);
        expectNeverSent(deltasOf(out, EventType.TEXT_MESSAGE_CONTENT), BANNED);
        expectNeverSent(deltasOf(out, EventType.TOOL_CALL_ARGS), BANNED);
        const last = out.at(-1);
        expect(last).toEqual({
          type: EventType.RUN_ERROR,
          code: GUARDRAIL_BLOCKED_CODE,
          message: 'Blocked by guardrail "Compliance" (rule "topics").',
        });
        expect(JSON.stringify(out).toLowerCase()).not.toContain(BANNED);
        expect(hits).toEqual([expect.objectContaining({ found: 'phrase', matched: BANNED.toUpperCase() })]);
        await verify(out);
      }
    }
  });

  it('blocks a phrase arriving one character per delta, and stops the source', async () => {
    const guardrails = blockBanned();
    const reply = `Some words first, then the ${BANNED}, then more words that never come`;
    let pulled = 0;
    let returned = false;
    const source = (async function* () {
      try {
        for (const event of runEvents([...reply])) {
          pulled++;
          yield event;
        }
      } finally {
        returned = true;
      }
    })();
    const { hits, report } = recordHits();
    const out = await collectEvents(guardrails.filterOutput(source, report));
    expectNeverSent(deltasOf(out, EventType.TEXT_MESSAGE_CONTENT), BANNED);
    expect(out.at(-1)?.type).toBe(EventType.RUN_ERROR);
    expect(hits).toHaveLength(1);
    expect(returned).toBe(true);
    // The source stopped at the phrase's last character: 2 events before the message's first delta.
    expect(pulled).toBe(2 + reply.indexOf(BANNED) + BANNED.length);
  });

  it('passes unrelated text through unchanged and in order, never more than holdBackChars behind', async () => {
    const guardrails = compile([
      {
        name: 'topics',
        kind: 'pattern',
        phrases: [BANNED, 'secret plan'],
        regexes: ['\\bcode [0-9]{4}\\b'],
        position: 'output',
        action: 'block',
      },
      {
        name: 'pii',
        kind: 'pii',
        entities: ['email', 'payment_card', 'iban', 'phone'],
        position: 'output',
        action: 'redact',
      },
    ]);
    const reply = 'Plain words, numbers 12 345 and 2024-01-15, an inside tip, a secret, 😀 emoji 🎉 too. '.repeat(20);
    const deltas = splitAt(
      reply,
      Array.from({ length: reply.length / 7 }, (_, index) => index * 7 + 3),
    );
    const events = runEvents(deltas);
    const { out, hits } = await filter(guardrails, events);
    expect(hits).toEqual([]);
    const sent = deltasOf(out, EventType.TEXT_MESSAGE_CONTENT);
    expect(sent.join('')).toBe(reply);
    expect(sent.every((delta) => delta !== '')).toBe(true);
    // After each source delta, what has gone out lags what came in by at most holdBackChars.
    let received = 0;
    let emitted = 0;
    const lags: number[] = [];
    const { report } = recordHits();
    for await (const event of guardrails.filterOutput(
      (async function* () {
        for (const event of events) {
          if (event.type === EventType.TEXT_MESSAGE_CONTENT) received += String(event.delta).length;
          yield event;
          lags.push(received - emitted);
        }
      })(),
      report,
    )) {
      if (event.type === EventType.TEXT_MESSAGE_CONTENT) emitted += String(event.delta).length;
    }
    expect(Math.max(...lags)).toBeLessThanOrEqual(guardrails.holdBackChars);
    expect(Math.max(...lags)).toBeGreaterThan(0);
    await verify(out);
  });

  it('never splits a surrogate pair', async () => {
    const guardrails = blockBanned();
    const reply = '😀'.repeat(40);
    for (let cut = 1; cut < 12; cut += 2) {
      const { out } = await filter(guardrails, runEvents(splitAt(reply, [cut, cut + 20, cut + 41])));
      const sent = deltasOf(out, EventType.TEXT_MESSAGE_CONTENT);
      expect(sent.join('')).toBe(reply);
      for (const delta of sent) expect(LONE_SURROGATE.test(delta)).toBe(false);
    }
  });

  it('redacts an email and a card number split across deltas to exactly the redacted text', async () => {
    const guardrails = compile([
      { name: 'pii', kind: 'pii', entities: ['email', 'payment_card'], position: 'output', action: 'redact' },
    ]);
    const reply = 'Write to jane.doe@example.com or pay with 4111 1111 1111 1111 today.';
    const expected = 'Write to [REDACTED:email] or pay with [REDACTED:payment_card] today.';
    for (let first = 1; first < reply.length; first += 3) {
      const { out, hits } = await filter(guardrails, runEvents(splitAt(reply, [first, first + 5, first + 17])));
      expect(deltasOf(out, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe(expected);
      expect(hits.map((hit) => [hit.found, hit.matched])).toEqual([
        ['email', 'jane.doe@example.com'],
        ['payment_card', '4111 1111 1111 1111'],
      ]);
    }
    const { out } = await filter(guardrails, runEvents([...reply]));
    expect(deltasOf(out, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe(expected);
  });

  it('redacts in tool-call arguments', async () => {
    const guardrails = compile([
      { name: 'cards', kind: 'pii', entities: ['payment_card'], position: 'output', action: 'redact' },
    ]);
    const args = '{"card":"4111-1111-1111-1111","note":"ok"}';
    const { out } = await filter(guardrails, runEvents([], splitAt(args, [10, 20, 30])));
    expect(deltasOf(out, EventType.TOOL_CALL_ARGS).join('')).toBe('{"card":"[REDACTED:payment_card]","note":"ok"}');
  });

  it('logs without changing a byte', async () => {
    const guardrails = compile([
      { name: 'topics', kind: 'pattern', phrases: [BANNED], position: 'output', action: 'log' },
    ]);
    const reply = `An ${BANNED} and another ${BANNED}.`;
    const { out, hits } = await filter(guardrails, runEvents(splitAt(reply, [5, 9, 20])));
    expect(deltasOf(out, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe(reply);
    expect(hits.map((hit) => hit.matched)).toEqual([BANNED, BANNED]);
    expect(out.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  });

  it('applies max_length per message: block ends the run, redact drops the rest, log reports once', async () => {
    const reply = splitAt('x'.repeat(50), [10, 20, 30, 40]);
    const rule = (action: 'block' | 'redact' | 'log') =>
      compile([{ name: 'short', kind: 'max_length', max_chars: 25, position: 'output', action }]);
    const blocked = await filter(rule('block'), runEvents(reply));
    expect(blocked.out.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: GUARDRAIL_BLOCKED_CODE });
    expect(deltasOf(blocked.out, EventType.TEXT_MESSAGE_CONTENT).join('').length).toBeLessThanOrEqual(25);
    const redacted = await filter(rule('redact'), runEvents(reply));
    expect(deltasOf(redacted.out, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe('x'.repeat(25));
    expect(redacted.out.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    await verify(redacted.out);
    const logged = await filter(rule('log'), runEvents(reply));
    expect(deltasOf(logged.out, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe('x'.repeat(50));
    expect(logged.hits).toEqual([expect.objectContaining({ found: 'length' })]);
  });

  it('filters chunk events, flushing a chunk stream when another event arrives', async () => {
    const guardrails = compile([
      { name: 'cards', kind: 'pii', entities: ['email'], position: 'output', action: 'redact' },
    ]);
    const chunks = ['mail ', 'me at a', 'b@exam', 'ple.org', ' now'];
    const events: BaseEvent[] = [
      { type: EventType.RUN_STARTED, ...RUN },
      ...chunks.map((delta, index) =>
        index === 0
          ? ({ type: EventType.TEXT_MESSAGE_CHUNK, messageId: 'c1', role: 'assistant', delta } as BaseEvent)
          : ({ type: EventType.TEXT_MESSAGE_CHUNK, delta } as BaseEvent),
      ),
      {
        type: EventType.TOOL_CALL_CHUNK,
        toolCallId: 'tc',
        toolCallName: 'send',
        delta: '{"to":"ab@example.org"}',
      } as BaseEvent,
      { type: EventType.RUN_FINISHED, ...RUN },
    ];
    const { out } = await filter(guardrails, events);
    const client = await verify(out);
    expect(deltasOf(client, EventType.TEXT_MESSAGE_CONTENT).join('')).toBe('mail me at [REDACTED:email] now');
    expect(deltasOf(client, EventType.TOOL_CALL_ARGS).join('')).toBe('{"to":"[REDACTED:email]"}');
  });

  it('checks the assistant messages of a MESSAGES_SNAPSHOT', async () => {
    const guardrails = compile([
      { name: 'cards', kind: 'pii', entities: ['email'], position: 'output', action: 'redact' },
    ]);
    const snapshot = {
      type: EventType.MESSAGES_SNAPSHOT,
      messages: [
        { id: 'u', role: 'user', content: 'I am u@example.org' },
        { id: 'a', role: 'assistant', content: 'Hello a@example.org' },
      ],
    } as BaseEvent;
    const { out } = await filter(guardrails, [
      { type: EventType.RUN_STARTED, ...RUN },
      snapshot,
      { type: EventType.RUN_FINISHED, ...RUN },
    ]);
    expect(out[1]).toEqual({
      type: EventType.MESSAGES_SNAPSHOT,
      messages: [
        { id: 'u', role: 'user', content: 'I am u@example.org' },
        { id: 'a', role: 'assistant', content: 'Hello [REDACTED:email]' },
      ],
    });
  });
});
