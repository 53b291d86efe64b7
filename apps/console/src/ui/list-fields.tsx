// Controls for the list and map fields of a config, shown as one entry per line: arrays of strings
// ("args", "allowedEmails") and string maps ("headers": one "Name: value" per line).
import type { Control, FieldErrors, FieldValues, Path } from 'react-hook-form';
import { Controller } from 'react-hook-form';
import { Field } from './field';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

type ErrorNode = { message?: unknown; root?: { message?: unknown } } | undefined;

/**
 * A list field's own error (too many items), else its first bad item's, said with the item: by default
 * the line it is on in a one-per-line textarea.
 */
export function linesError(
  errors: FieldErrors<FieldValues>,
  name: string,
  itemPrefix = (index: number) => `Line ${index + 1}: `,
): string | undefined {
  const node = name
    .split('.')
    .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], errors);
  const own = (node as ErrorNode)?.message ?? (node as ErrorNode)?.root?.message;
  if (typeof own === 'string') return own;
  if (!Array.isArray(node)) return undefined;
  const line = node.findIndex((item: ErrorNode) => typeof item?.message === 'string');
  return line < 0 ? undefined : `${itemPrefix(line)}${String((node[line] as ErrorNode)?.message)}`;
}

type ListProps<T extends FieldValues> = {
  control: Control<T>;
  name: Path<T>;
  label: string;
  hint?: string;
  error: string | undefined;
  /** Left out of the body when empty, for optional lists without a default. */
  emptyAsAbsent?: boolean;
};

export function LinesField<T extends FieldValues>(props: ListProps<T>) {
  return (
    <Controller
      control={props.control}
      name={props.name}
      render={({ field }) => (
        <Field label={props.label} error={props.error} hint={props.hint ?? 'One per line'}>
          <textarea
            rows={3}
            name={field.name}
            disabled={field.disabled}
            onBlur={field.onBlur}
            defaultValue={((field.value as string[] | undefined) ?? []).join('\n')}
            onChange={(event) => {
              const items = lines(event.target.value);
              field.onChange(items.length === 0 && props.emptyAsAbsent ? undefined : items);
            }}
          />
        </Field>
      )}
    />
  );
}

export function MapField<T extends FieldValues>(props: ListProps<T> & { separator: ':' | '=' }) {
  const { separator } = props;
  return (
    <Controller
      control={props.control}
      name={props.name}
      render={({ field }) => (
        <Field
          label={props.label}
          error={props.error}
          hint={props.hint ?? (separator === ':' ? 'One "Name: value" per line' : 'One "NAME=value" per line')}
        >
          <textarea
            rows={3}
            name={field.name}
            disabled={field.disabled}
            onBlur={field.onBlur}
            defaultValue={Object.entries((field.value as Record<string, string> | undefined) ?? {})
              .map(([key, value]) => `${key}${separator === ':' ? ': ' : '='}${value}`)
              .join('\n')}
            onChange={(event) => {
              const entries = lines(event.target.value).map((line) => {
                const at = line.indexOf(separator);
                return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
              });
              field.onChange(Object.fromEntries(entries));
            }}
          />
        </Field>
      )}
    />
  );
}
