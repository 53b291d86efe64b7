// One dataset: its items at the version chosen (the current one first), and, at the current version,
// adding, editing and deleting items, importing JSONL and adding items from an agent's threads. Every
// change makes a new version; older ones stay readable here and exportable.
import type { TDatasetImportMode } from '@agentplane/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { problemOf } from '../api/api-problem';
import { useRole } from '../session/use-me';
import { ConfirmDelete } from '../ui/confirm-delete';
import { EmptyState } from '../ui/empty-state';
import { type Column, PagedTable } from '../ui/paged-table';
import { ProblemAlert } from '../ui/problem-alert';
import {
  addItems,
  DATASETS_KEY,
  type DatasetItem,
  datasetKeys,
  deleteDataset,
  deleteItem,
  downloadJsonl,
  getDataset,
  importJsonl,
  lastUserText,
  listItems,
  listVersions,
  replaceItem,
} from './dataset-api';
import { ItemEditor } from './item-editor';
import { ThreadPicker } from './thread-picker';

function ImportForm(props: { onImport: (text: string, mode: TDatasetImportMode) => Promise<void> }) {
  const id = useId();
  const [file, setFile] = useState<File | undefined>();
  const [mode, setMode] = useState<TDatasetImportMode>('append');
  return (
    <fieldset>
      <legend>Import JSONL</legend>
      <label htmlFor={`${id}-file`}>JSONL file</label>
      <input
        id={`${id}-file`}
        type="file"
        accept=".jsonl,.ndjson"
        onChange={(event) => setFile(event.target.files?.[0])}
      />
      <label htmlFor={`${id}-mode`}>Mode</label>
      <select id={`${id}-mode`} value={mode} onChange={(event) => setMode(event.target.value as TDatasetImportMode)}>
        <option value="append">Append to the items</option>
        <option value="replace">Replace every item</option>
      </select>
      <button
        type="button"
        disabled={!file}
        onClick={() => void file?.text().then((text) => props.onImport(text, mode))}
      >
        Import
      </button>
    </fieldset>
  );
}

export function DatasetPage() {
  const { id = '' } = useParams();
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const versionSelectId = useId();
  const [chosen, setChosen] = useState<number | undefined>();
  const [editing, setEditing] = useState<DatasetItem | 'new' | undefined>();
  const [failure, setFailure] = useState<unknown>();
  const dataset = useQuery({ queryKey: datasetKeys.one(id), queryFn: () => getDataset(id) });
  const versions = useQuery({ queryKey: datasetKeys.versions(id), queryFn: () => listVersions(id) });
  if (dataset.error) return <ProblemAlert problem={problemOf(dataset.error)} />;
  if (!dataset.data) return <p aria-busy="true">Loading…</p>;
  const current = dataset.data.version;
  const version = chosen ?? current;
  const atCurrent = version === current;
  const editable = canWrite && atCurrent;

  // Each write makes a version: the page moves to it, and reads the dataset, its versions and items again.
  const change = async (write: () => Promise<unknown>) => {
    setFailure(undefined);
    try {
      await write();
      setEditing(undefined);
      setChosen(undefined);
      await queryClient.invalidateQueries({ queryKey: datasetKeys.one(id) });
    } catch (error) {
      setFailure(error);
    }
  };

  const columns: Column<DatasetItem>[] = [
    { header: 'Last user message', cell: lastUserText },
    { header: 'Messages', cell: (item) => item.input.length },
    { header: 'Expected reply', cell: (item) => item.expected?.reply ?? '' },
    { header: 'Expected tools', cell: (item) => item.expected?.tool_calls?.map((call) => call.name).join(', ') ?? '' },
    { header: 'Since version', cell: (item) => item.version },
  ];
  if (editable) {
    columns.push({
      header: 'Actions',
      cell: (item) => (
        <div className="actions">
          <button type="button" onClick={() => setEditing(item)}>
            Edit
          </button>
          <button type="button" className="danger" onClick={() => void change(() => deleteItem(id, item.id))}>
            Delete item
          </button>
        </div>
      ),
    });
  }

  return (
    <section>
      <div className="page-head">
        <h1>{dataset.data.name}</h1>
        {canWrite && (
          <ConfirmDelete
            what={`the dataset ${dataset.data.name} and all its versions`}
            onConfirm={() =>
              void deleteDataset(id).then(async () => {
                await queryClient.invalidateQueries({ queryKey: [DATASETS_KEY] });
                await navigate('/datasets');
              })
            }
          />
        )}
      </div>
      {dataset.data.description && <p>{dataset.data.description}</p>}
      <div className="actions">
        <label htmlFor={versionSelectId}>Version</label>
        <select id={versionSelectId} value={version} onChange={(event) => setChosen(Number(event.target.value))}>
          {(versions.data?.items ?? [{ version: current, change: 'created', item_count: 0 }]).map((each) => (
            <option key={each.version} value={each.version}>
              {each.version === current ? `${each.version} (current)` : each.version}: {each.item_count} items,{' '}
              {each.change}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void downloadJsonl(id, version).catch(setFailure)}>
          Export version {version} as JSONL
        </button>
      </div>
      <ProblemAlert problem={problemOf(failure)} />
      {editable && (
        <>
          {editing === undefined && (
            <button type="button" onClick={() => setEditing('new')}>
              Add item
            </button>
          )}
          {editing === 'new' && (
            <ItemEditor
              label="New item (JSON)"
              submitLabel="Add item"
              onSubmit={(item) => change(() => addItems(id, [item]))}
              onCancel={() => setEditing(undefined)}
            />
          )}
          {editing !== undefined && editing !== 'new' && (
            <ItemEditor
              key={editing.id}
              label="Item (JSON)"
              initial={{ input: editing.input, expected: editing.expected, metadata: editing.metadata }}
              submitLabel="Save item"
              onSubmit={(item) => change(() => replaceItem(id, editing.id, item))}
              onCancel={() => setEditing(undefined)}
            />
          )}
          <ImportForm onImport={(text, mode) => change(() => importJsonl(id, text, mode))} />
          <ThreadPicker onAdd={(items) => change(() => addItems(id, items))} />
        </>
      )}
      <PagedTable
        caption={`Items of version ${version}`}
        queryKey={datasetKeys.items(id, version)}
        fetchPage={(offset, limit) => listItems(id, version, offset, limit)}
        columns={columns}
        empty={
          <EmptyState title={atCurrent ? 'No items yet' : `Version ${version} has no items`}>
            <p>Add items one by one, import a JSONL file, or pick conversations from an agent's threads.</p>
          </EmptyState>
        }
      />
    </section>
  );
}
