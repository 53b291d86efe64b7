// Which dataset an experiment runs, and which of its versions (the current one unless chosen): two
// selects, the second read again when the first changes.
import { useQuery } from '@tanstack/react-query';
import { datasetKeys, listDatasets, listVersions } from '../datasets/dataset-api';
import { Field } from '../ui/field';

export type DatasetChoice = { dataset: string; version: number | undefined };

export function DatasetChoiceFields(props: {
  value: DatasetChoice;
  onChange: (value: DatasetChoice) => void;
  errors: { dataset?: string | undefined; dataset_version?: string | undefined };
}) {
  const datasets = useQuery({ queryKey: datasetKeys.list(), queryFn: () => listDatasets(0, 1000) });
  const { dataset } = props.value;
  const versions = useQuery({
    queryKey: datasetKeys.versions(dataset),
    queryFn: () => listVersions(dataset),
    enabled: dataset !== '',
  });
  const current = datasets.data?.items.find((each) => each.id === dataset)?.version;
  return (
    <>
      <Field label="Dataset" error={props.errors.dataset}>
        <select
          name="dataset"
          value={dataset}
          onChange={(event) => props.onChange({ dataset: event.target.value, version: undefined })}
        >
          <option value="">Choose a dataset…</option>
          {datasets.data?.items.map((each) => (
            <option key={each.id} value={each.id}>
              {each.name} ({each.item_count} items)
            </option>
          ))}
        </select>
      </Field>
      <Field label="Dataset version" error={props.errors.dataset_version}>
        <select
          name="dataset_version"
          value={props.value.version ?? ''}
          disabled={dataset === ''}
          onChange={(event) =>
            props.onChange({ dataset, version: event.target.value === '' ? undefined : Number(event.target.value) })
          }
        >
          <option value="">The current one{current === undefined ? '' : ` (${current})`}</option>
          {versions.data?.items.map((each) => (
            <option key={each.version} value={each.version}>
              {each.version}: {each.item_count} items, {each.change}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}
