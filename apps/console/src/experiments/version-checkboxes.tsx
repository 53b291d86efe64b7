// The agent versions an experiment compares, picked from its History (newest first), a checkbox each.
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { listAgentVersions, versionKeys } from '../agents/version-api';

/** The History's first page: the versions a person compares are the recent ones. */
const VERSIONS_SHOWN = 100;

export function VersionCheckboxes(props: {
  agentId: string;
  value: number[];
  onChange: (versions: number[]) => void;
  error?: string | undefined;
}) {
  const id = useId();
  const versions = useQuery({
    queryKey: [...versionKeys.list(props.agentId), 0, VERSIONS_SHOWN],
    queryFn: () => listAgentVersions(props.agentId, 0, VERSIONS_SHOWN),
  });
  const toggle = (version: number) =>
    props.onChange(
      props.value.includes(version) ? props.value.filter((each) => each !== version) : [...props.value, version],
    );
  return (
    <fieldset aria-describedby={props.error ? `${id}-error` : undefined}>
      <legend>Agent versions</legend>
      {versions.data?.items.map((row) => (
        <div className="checkbox" key={row.version}>
          <input
            id={`${id}-${row.version}`}
            type="checkbox"
            name="agent_versions"
            checked={props.value.includes(row.version)}
            onChange={() => toggle(row.version)}
          />
          <label htmlFor={`${id}-${row.version}`}>
            v{row.version}
            {row.current ? ' (current)' : ''}
            {row.message ? `: ${row.message}` : ''}
          </label>
        </div>
      ))}
      {props.error && (
        <span id={`${id}-error`} className="field-error">
          {props.error}
        </span>
      )}
    </fieldset>
  );
}
