// The items of an experiment's dataset version by id, as their last user message: what the comparison
// names an item by. Empty once the dataset is deleted (the items' positions still name them). A filtered
// page of the comparison may skip around the dataset, so the dataset is read in aligned pages of the
// largest size, those that hold the positions shown: one for an unfiltered page, a few at most otherwise.
import { useQueries } from '@tanstack/react-query';
import { datasetKeys, lastUserText, listItems } from '../datasets/dataset-api';
import { type Experiment, LARGEST_PAGE } from './experiment-api';

export function useItemQuestions(experiment: Experiment, positions: readonly number[]): Map<string, string> {
  const datasetId = experiment.dataset_id ?? '';
  const offsets = [...new Set(positions.map((position) => position - (position % LARGEST_PAGE)))];
  const pages = useQueries({
    queries: offsets.map((offset) => ({
      queryKey: [...datasetKeys.items(datasetId, experiment.dataset_version), offset, LARGEST_PAGE],
      queryFn: () => listItems(datasetId, experiment.dataset_version, offset, LARGEST_PAGE),
      enabled: datasetId !== '',
    })),
  });
  return new Map(pages.flatMap((page) => page.data?.items.map((item) => [item.id, lastUserText(item)] as const) ?? []));
}
