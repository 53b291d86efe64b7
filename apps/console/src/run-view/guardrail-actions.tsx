// The guardrail rules that fired in a run, as its record keeps them (the manager's runs list, the
// engine's run record): which rule, where, what it did and what it found; never the matched text.
import type { Schemas } from '../api/api-client';

export type GuardrailActionRecord = Schemas['GuardrailActionRecord'];

export function GuardrailActions({ actions }: { actions: GuardrailActionRecord[] }) {
  if (actions.length === 0) return null;
  return (
    <ul className="guardrail-actions">
      {actions.map((action, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a run's record never reorders, and one rule may fire twice in a millisecond
        <li key={index}>
          {action.guardrail} / {action.rule}: {action.action} at {action.position} ({action.found})
        </li>
      ))}
    </ul>
  );
}
