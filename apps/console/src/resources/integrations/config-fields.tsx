// The inputs of an integration's provider config, bound to `integration.config.<name>`: plain ones, and
// secrets. A secret arrives masked (a viewer, or a member who has not asked to reveal it) and a mask
// sent back unchanged keeps the stored secret, so a secret is left alone unless retyped. It is typed
// into a password-style input that the browser neither autofills nor remembers; "Show" reads it back
// (the mask's last characters, or the secret after "Reveal secrets").
import { type ReactElement, useState } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { errorAt, Field, optionalText } from '../../ui/field';

export type ProviderFieldsProps = { form: UseFormReturn<FieldValues> };

type ConfigFieldProps = ProviderFieldsProps & {
  name: string;
  label: string;
  hint?: string;
  optional?: boolean;
};

const pathOf = (name: string) => `integration.config.${name}`;

function registerConfig({ form, name, optional }: ConfigFieldProps) {
  return form.register(pathOf(name), optional ? optionalText : {});
}

type ControlAttributes = { id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };

function ConfigField(props: ConfigFieldProps & { children: ReactElement<ControlAttributes> }) {
  const error = errorAt(props.form.formState.errors, pathOf(props.name));
  // Field gives its child the id and aria attributes: the child is the control, or SecretControl below.
  return (
    <Field label={props.label} error={error} {...(props.hint ? { hint: props.hint } : {})}>
      {props.children}
    </Field>
  );
}

export function TextField(props: ConfigFieldProps) {
  return (
    <ConfigField {...props}>
      <input {...registerConfig(props)} />
    </ConfigField>
  );
}

function SecretControl(props: ControlAttributes & { field: ConfigFieldProps; multiline: boolean; label: string }) {
  const [shown, setShown] = useState(false);
  const { field, multiline, label, ...attributes } = props;
  const common = { ...attributes, ...registerConfig(field), autoComplete: 'off', spellCheck: false };
  return (
    <span className="secret-input">
      {multiline ? (
        // A textarea has no password type: a class hides its characters instead.
        <textarea rows={shown ? 6 : 2} className={shown ? undefined : 'concealed'} {...common} />
      ) : (
        <input type={shown ? 'text' : 'password'} {...common} autoComplete="new-password" />
      )}
      <button type="button" aria-pressed={shown} aria-label={`Show ${label}`} onClick={() => setShown(!shown)}>
        Show
      </button>
    </span>
  );
}

/** A secret: password-style, write-mostly. `multiline` for a PEM key, whose line breaks count. */
export function SecretField(props: ConfigFieldProps & { multiline?: boolean }) {
  const { multiline = false, ...field } = props;
  return (
    <ConfigField {...field}>
      <SecretControl field={field} multiline={multiline} label={field.label.toLowerCase()} />
    </ConfigField>
  );
}
