// The calls a run paused on for a human (interrupts of reason `tool_approval`), a card each: the tool,
// its arguments, and Approve, Reject, or Edit (arguments as JSON, checked before they are sent). A
// card's answer waits in the card until every card of the run is answered; then one run resumes them all.
import type { Interrupt, ResumeEntry } from '@ag-ui/client';
import { useId, useState } from 'react';
import { editedArgsSchema, readEditedArguments } from './edited-arguments';

export const TOOL_APPROVAL = 'tool_approval';

type Call = { toolName: string; arguments: unknown };

const callOf = (interrupt: Interrupt): Call => {
  const metadata = (interrupt.metadata ?? {}) as Partial<Call>;
  return { toolName: String(metadata.toolName ?? 'a tool'), arguments: metadata.arguments ?? {} };
};

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function EditForm({ interrupt, onDone }: { interrupt: Interrupt; onDone: (entry?: ResumeEntry) => void }) {
  const id = useId();
  const [text, setText] = useState(() => pretty(callOf(interrupt).arguments));
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        const read = readEditedArguments(text, editedArgsSchema(interrupt.responseSchema));
        if ('problem' in read) return setProblem(read.problem);
        onDone({ interruptId: interrupt.id, status: 'resolved', payload: { approved: true, editedArgs: read.args } });
      }}
    >
      <label htmlFor={`${id}-args`}>Arguments (JSON)</label>
      <textarea
        id={`${id}-args`}
        rows={6}
        value={text}
        aria-invalid={problem !== undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(event) => setText(event.target.value)}
      />
      {problem && (
        <p id={`${id}-problem`} role="alert" className="problem">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit">Approve with these arguments</button>
        <button type="button" onClick={() => onDone()}>
          Cancel editing
        </button>
      </div>
    </form>
  );
}

function ApprovalCard({
  interrupt,
  answer,
  onAnswer,
}: {
  interrupt: Interrupt;
  answer: ResumeEntry | undefined;
  onAnswer: (entry: ResumeEntry) => void;
}) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const call = callOf(interrupt);
  const decided =
    answer === undefined
      ? undefined
      : answer.status === 'cancelled'
        ? 'Rejected'
        : (answer.payload as { editedArgs?: unknown }).editedArgs
          ? 'Approved with edited arguments'
          : 'Approved';
  return (
    <article className="tool-call approval" aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Approve the call of {call.toolName}?</h4>
      <pre>{pretty(call.arguments)}</pre>
      {decided ? (
        <p role="status">{decided}; waiting for the other calls to be answered.</p>
      ) : editing ? (
        <EditForm
          interrupt={interrupt}
          onDone={(entry) => {
            setEditing(false);
            if (entry) onAnswer(entry);
          }}
        />
      ) : (
        <div className="actions">
          <button
            type="button"
            onClick={() => onAnswer({ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } })}
          >
            Approve
          </button>
          <button type="button" onClick={() => onAnswer({ interruptId: interrupt.id, status: 'cancelled' })}>
            Reject
          </button>
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        </div>
      )}
    </article>
  );
}

export function ToolApprovalCards({
  interrupts,
  onResume,
}: {
  interrupts: Interrupt[];
  onResume: (answers: ResumeEntry[]) => void;
}) {
  const id = useId();
  const [answers, setAnswers] = useState<ReadonlyMap<string, ResumeEntry>>(() => new Map());
  const approvals = interrupts.filter((interrupt) => interrupt.reason === TOOL_APPROVAL);
  if (approvals.length === 0) return null;
  const answer = (entry: ResumeEntry) => {
    const next = new Map(answers).set(entry.interruptId, entry);
    const all = approvals.map((interrupt) => next.get(interrupt.id));
    if (all.every((each) => each !== undefined)) {
      setAnswers(new Map());
      onResume(all as ResumeEntry[]);
    } else {
      setAnswers(next);
    }
  };
  return (
    <section aria-labelledby={`${id}-heading`} className="interrupts">
      <h3 id={`${id}-heading`}>Tool calls waiting for your approval</h3>
      {approvals.map((interrupt) => (
        <ApprovalCard key={interrupt.id} interrupt={interrupt} answer={answers.get(interrupt.id)} onAnswer={answer} />
      ))}
    </section>
  );
}
