// How a graph's interrupt value reads as an AG-UI interrupt, whatever the graph passed to interrupt().
import { describe, expect, it } from '@jest/globals';
import { toGraphInterrupt } from './graph-interrupts.js';

describe('toGraphInterrupt', () => {
  it('uses a string value as the message, and keeps the value and the id', () => {
    expect(toGraphInterrupt({ id: 'i1', value: 'Deploy to production?' })).toEqual({
      id: 'i1',
      reason: 'graph_interrupt',
      message: 'Deploy to production?',
      metadata: { value: 'Deploy to production?' },
    });
  });

  it('renders any other value as JSON in the message, and keeps it as it is in metadata.value', () => {
    const value = { question: 'Which region?', options: ['eu', 'us'] };
    expect(toGraphInterrupt({ id: 'i2', value, response_schema: { type: 'string' } })).toEqual({
      id: 'i2',
      reason: 'graph_interrupt',
      message: '{"question":"Which region?","options":["eu","us"]}',
      responseSchema: { type: 'string' },
      metadata: { value },
    });
    expect(toGraphInterrupt({ id: 'i3', value: 42 }).message).toBe('42');
  });

  it('has no message for interrupt() without a value, and a message for one JSON cannot hold', () => {
    const bare = toGraphInterrupt({});
    expect(bare).toEqual({ id: expect.any(String), reason: 'graph_interrupt', metadata: { value: null } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toGraphInterrupt({ id: 'i4', value: cyclic })).toMatchObject({
      message: '[object Object]',
      metadata: { value: '[object Object]' },
    });
  });
});
