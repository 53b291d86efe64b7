// The tool_called scorer: whether the run called a tool, with arguments that match. Arguments compare
// as a subset (every named one must be equal; objects compare the same way, recursively; arrays must
// have the same length and match item by item), and a pattern per argument runs in RE2.
import type { TScorerOf, TScoringObservation } from '@agentplane/contracts';
import { RE2JS } from 're2js';
import { type CompiledScorer, type Grade, quote } from './grade.js';

type ToolCall = TScoringObservation['tool_calls'][number];
type Wanted = { name: string; arguments?: Record<string, unknown> | undefined; patterns?: [string, RE2JS][] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `actual` has everything `wanted` has. */
export function matchesSubset(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return (
      Array.isArray(actual) &&
      actual.length === wanted.length &&
      wanted.every((item, i) => matchesSubset(actual[i], item))
    );
  }
  if (isRecord(wanted)) {
    return (
      isRecord(actual) &&
      Object.entries(wanted).every(([key, value]) => Object.hasOwn(actual, key) && matchesSubset(actual[key], value))
    );
  }
  return Object.is(actual, wanted);
}

function matchesPattern(value: unknown, pattern: RE2JS): boolean {
  if (value === undefined) return false;
  return pattern.matcher(typeof value === 'string' ? value : JSON.stringify(value)).find();
}

function callMatches(call: ToolCall, wanted: Wanted): boolean {
  return (
    call.name === wanted.name &&
    (wanted.arguments === undefined || matchesSubset(call.arguments, wanted.arguments)) &&
    (wanted.patterns ?? []).every(([name, pattern]) => matchesPattern(call.arguments[name], pattern))
  );
}

function gradeOneTool(calls: ToolCall[], wanted: Wanted): Grade {
  if (calls.some((call) => callMatches(call, wanted))) return { score: 1, reason: `Called ${quote(wanted.name)}` };
  const named = calls.filter((call) => call.name === wanted.name).length;
  return named === 0
    ? { score: 0, reason: `Never called ${quote(wanted.name)}` }
    : { score: 0, reason: `Called ${quote(wanted.name)} ${named} time(s), never with matching arguments` };
}

function gradeExpectedCalls(calls: ToolCall[], expected: Wanted[] | undefined): Grade {
  if (expected === undefined) return { score: null, reason: 'No tool named, and the item expects no tool calls' };
  if (expected.length === 0) {
    return calls.length === 0
      ? { score: 1, reason: 'Called no tool, as expected' }
      : { score: 0, reason: `Called ${calls.length} tool(s) where none was expected` };
  }
  const missing = expected.filter((wanted) => !calls.some((call) => callMatches(call, wanted)));
  const found = expected.length - missing.length;
  return {
    score: found / expected.length,
    reason:
      missing.length === 0
        ? `Made all ${expected.length} expected call(s)`
        : `Made ${found} of ${expected.length} expected calls; missing ${missing
            .slice(0, 3)
            .map((m) => quote(m.name))
            .join(', ')}`,
  };
}

export function compileToolCalled(scorer: TScorerOf<'tool_called'>): CompiledScorer {
  const patterns = Object.entries(scorer.argument_patterns ?? {}).map(([name, source]): [string, RE2JS] => [
    name,
    RE2JS.compile(source),
  ]);
  const { tool } = scorer;
  return ({ observation, expected }) =>
    tool === undefined
      ? gradeExpectedCalls(observation.tool_calls, expected.tool_calls)
      : gradeOneTool(observation.tool_calls, { name: tool, arguments: scorer.arguments, patterns });
}
