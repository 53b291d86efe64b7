// The workspace's datasets, a page at a time, and a form that creates one.
import { ZDatasetInput } from '@agentplane/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { EmptyState } from '../ui/empty-state';
import { errorAt, Field } from '../ui/field';
import { type Column, PagedTable } from '../ui/paged-table';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';
import { createDataset, DATASETS_KEY, type Dataset, datasetKeys, listDatasets } from './dataset-api';

const COLUMNS: Column<Dataset>[] = [
  { header: 'Name', cell: (dataset) => <Link to={`/datasets/${dataset.id}`}>{dataset.name}</Link> },
  { header: 'Description', cell: (dataset) => dataset.description ?? '' },
  { header: 'Items', cell: (dataset) => dataset.item_count },
  { header: 'Version', cell: (dataset) => dataset.version },
];

function NewDatasetForm() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZDatasetInput,
    defaultValues: { name: '', description: null },
    submit: async (body) => {
      const created = await createDataset(body);
      await queryClient.invalidateQueries({ queryKey: [DATASETS_KEY] });
      await navigate(`/datasets/${created.id}`);
    },
  });
  return (
    <form onSubmit={onSubmit} aria-label="New dataset">
      <ProblemAlert problem={problem} />
      <Field label="Name" error={errorAt(form.formState.errors, 'name')}>
        <input {...form.register('name')} />
      </Field>
      <button type="submit" disabled={form.formState.isSubmitting}>
        Create dataset
      </button>
    </form>
  );
}

export function DatasetsPage() {
  const { canWrite } = useRole();
  return (
    <section>
      <div className="page-head">
        <h1>Datasets</h1>
      </div>
      {canWrite && <NewDatasetForm />}
      <PagedTable
        caption="Datasets"
        queryKey={datasetKeys.list()}
        fetchPage={listDatasets}
        columns={COLUMNS}
        empty={
          <EmptyState title="No datasets yet">
            <p>A dataset holds conversations and the answers expected of them, to compare agent versions on.</p>
          </EmptyState>
        }
      />
    </section>
  );
}
