// A labelled form control with its error: the label names it (tests and screen readers find it by that
// name) and the error is tied to it with aria-describedby.
import { cloneElement, type ReactElement, useId } from 'react';
import type { FieldErrors, FieldValues } from 'react-hook-form';

type ControlProps = { id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };

export function Field(props: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactElement<ControlProps>;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? errorId : undefined, props.hint ? hintId : undefined].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {cloneElement(props.children, {
        id,
        'aria-invalid': props.error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {props.hint && (
        <small id={hintId} className="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <span id={errorId} className="field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}

/** The message react-hook-form holds for a dotted field name, nested objects and arrays included. */
export function errorAt(errors: FieldErrors<FieldValues>, name: string): string | undefined {
  let node: unknown = errors;
  for (const part of name.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  const message = (node as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** An optional text input: empty means absent, as the API's optional fields expect. */
export const optionalText = { setValueAs: (value: unknown) => (value === '' || value == null ? undefined : value) };

/** A number input: empty means absent; anything else goes to the schema as a number, so it can say why not. */
export const optionalNumber = {
  setValueAs: (value: unknown) => (value === '' || value == null ? undefined : Number(value)),
};
