// A run that ended on LangGraph's interrupt() waits for an answer: the answer, JSON or text, resumes it.
import type { Interrupt } from '@ag-ui/client';
import { useId, useState } from 'react';

function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function InterruptPanel({
  interrupts,
  onResume,
}: {
  interrupts: Interrupt[];
  onResume: (payload: unknown) => void;
}) {
  const [answer, setAnswer] = useState('');
  const id = useId();
  if (interrupts.length === 0) return null;
  return (
    <section aria-labelledby={`${id}-heading`} className="interrupts">
      <h3 id={`${id}-heading`}>The agent is waiting for you</h3>
      {interrupts.map((interrupt) => (
        <div key={interrupt.id}>
          <p>{interrupt.message ?? interrupt.reason}</p>
          {interrupt.responseSchema && <pre>{JSON.stringify(interrupt.responseSchema, null, 2)}</pre>}
        </div>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onResume(parseAnswer(answer));
          setAnswer('');
        }}
      >
        <label htmlFor={`${id}-answer`}>Answer</label>
        <textarea id={`${id}-answer`} value={answer} onChange={(event) => setAnswer(event.target.value)} />
        <button type="submit">Resume</button>
      </form>
    </section>
  );
}
