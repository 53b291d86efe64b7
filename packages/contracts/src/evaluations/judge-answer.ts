// A judging model's answer, read strictly: one JSON object (optionally in a code fence, as models often
// write it) of the shape the caller asks for, and nothing else. The engine's guardrail judge and the
// manager's model_judge scorer both read their answers this way.
import type { z } from 'zod';

/** The answer's JSON in the caller's shape, or undefined when it is not one. */
export function readJudgeAnswer<T>(answer: string, shape: z.ZodType<T>): T | undefined {
  const unfenced = answer
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced);
  } catch {
    return undefined;
  }
  const read = shape.safeParse(parsed);
  return read.success ? read.data : undefined;
}
