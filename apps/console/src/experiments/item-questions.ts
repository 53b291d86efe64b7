// The items of an experiment's dataset version by id, as their last user message: what the comparison
// names an item by. Empty once the dataset is deleted (the items' positions still name them).
import { useQuery } from '@tanstack/react-query';
import { datasetKeys, lastUserText, listItems } from '../datasets/dataset-api';
import { type Experiment, LARGEST_PAGE } from './experiment-api';

export function useItemQuestions(experiment: Experiment, offset: number): Map<string, string> {
  const datasetId = experiment.dataset_id ?? '';
  const items = useQuery({
    queryKey: [...datasetKeys.items(datasetId, experiment.dataset_version), offset, LARGEST_PAGE],
    queryFn: () => listItems(datasetId, experiment.dataset_version, offset, LARGEST_PAGE),
    enabled: datasetId !== '',
  });
  return new Map(items.data?.items.map((item) => [item.id, lastUserText(item)]));
}
