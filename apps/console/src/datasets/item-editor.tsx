// An item as JSON text, edited as a whole ({input, expected?, metadata?}): the contract's own schema says
// what is wrong before it is sent, and the API's answer says the rest.
import { type TDatasetItemInput, ZDatasetItemInput } from '@agentplane/contracts';
import { useId, useState } from 'react';

const EXAMPLE = JSON.stringify(
  { input: [{ role: 'user', content: 'Where is my invoice?' }], expected: { reply: 'Under Billing > Invoices.' } },
  null,
  2,
);

function parseItem(text: string): TDatasetItemInput | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'This is not valid JSON.';
  }
  const parsed = ZDatasetItemInput.safeParse(value);
  if (parsed.success) return parsed.data;
  return parsed.error.issues.map((issue) => `${issue.path.join('.') || 'item'}: ${issue.message}`).join('; ');
}

export function ItemEditor(props: {
  label: string;
  initial?: TDatasetItemInput;
  submitLabel: string;
  onSubmit: (item: TDatasetItemInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const [text, setText] = useState(() => (props.initial ? JSON.stringify(props.initial, null, 2) : EXAMPLE));
  const [error, setError] = useState<string | undefined>();
  const submit = async () => {
    const item = parseItem(text);
    if (typeof item === 'string') return setError(item);
    setError(undefined);
    try {
      await props.onSubmit(item);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <textarea id={id} rows={10} value={text} onChange={(event) => setText(event.target.value)} />
      {error && (
        <p role="alert" className="problem">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={() => void submit()}>
          {props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </div>
  );
}
