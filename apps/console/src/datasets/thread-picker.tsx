// "Build a dataset from threads": the signed-in user's threads of an agent, read from its engine with
// the user's own token (as the playground reads them), chosen and added as items. Each thread gives the
// conversation up to its last user message as input and the agent's last reply as the expected one.
import { type TDatasetItemInput, type ThreadMessage, threadToDatasetItem } from '@agentplane/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { listAgents } from '../agents/agent-api';
import { engineTokenSource, getFromEngine, getPageFromEngine } from '../playground/engine-token';
import type { ThreadItem } from '../playground/thread-list';

const THREADS_SHOWN = 50;

function Threads(props: { agentId: string; engineUrl: string; onAdd: (items: TDatasetItemInput[]) => Promise<void> }) {
  const token = useMemo(() => engineTokenSource(props.agentId), [props.agentId]);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [note, setNote] = useState<string | undefined>();
  const threads = useQuery({
    queryKey: ['dataset-thread-picker', props.engineUrl, props.agentId],
    queryFn: async () =>
      getPageFromEngine<ThreadItem>(props.engineUrl, `/agent/threads?limit=${THREADS_SHOWN}`, await token()),
    retry: false,
  });
  const toggle = (threadId: string) =>
    setPicked((before) => {
      const after = new Set(before);
      if (!after.delete(threadId)) after.add(threadId);
      return after;
    });
  const add = async () => {
    const items: TDatasetItemInput[] = [];
    for (const threadId of picked) {
      const thread = await getFromEngine<{ messages: ThreadMessage[] }>(
        props.engineUrl,
        `/agent/threads/${encodeURIComponent(threadId)}`,
        await token(),
      );
      const item = threadToDatasetItem(thread.messages, {
        source: 'thread',
        agent_id: props.agentId,
        thread_id: threadId,
      });
      if (item) items.push(item);
    }
    const skipped = picked.size - items.length;
    if (items.length > 0) await props.onAdd(items);
    setPicked(new Set());
    setNote(`Added ${items.length} item(s)${skipped > 0 ? `; ${skipped} thread(s) had no user message` : ''}.`);
  };
  if (threads.error) return <p className="note">Threads unavailable: {threads.error.message}</p>;
  if (!threads.data) return <p aria-busy="true">Loading threads…</p>;
  if (threads.data.total === 0) return <p className="note">You have no threads with this agent yet.</p>;
  return (
    <>
      <ul aria-label="Threads" className="thread-picks">
        {threads.data.items.map((thread) => (
          <li key={thread.thread_id}>
            <label>
              <input type="checkbox" checked={picked.has(thread.thread_id)} onChange={() => toggle(thread.thread_id)} />
              {thread.title ?? 'Untitled thread'} ({thread.message_count} messages,{' '}
              {new Date(thread.updated_at).toLocaleString()})
            </label>
          </li>
        ))}
      </ul>
      <button
        type="button"
        disabled={picked.size === 0}
        onClick={() => void add().catch((error: Error) => setNote(error.message))}
      >
        Add {picked.size} thread(s) as items
      </button>
      {note && <p className="note">{note}</p>}
    </>
  );
}

export function ThreadPicker(props: { onAdd: (items: TDatasetItemInput[]) => Promise<void> }) {
  const id = useId();
  const [agentId, setAgentId] = useState('');
  const agents = useQuery({ queryKey: ['dataset-thread-picker', 'agents'], queryFn: () => listAgents(0, 1000) });
  const withEngine = (agents.data?.items ?? []).filter((agent) => agent.engine_url);
  const agent = withEngine.find((each) => each.id === agentId);
  return (
    <fieldset>
      <legend>Add items from an agent's threads</legend>
      <label htmlFor={id}>Agent</label>
      <select id={id} value={agentId} onChange={(event) => setAgentId(event.target.value)}>
        <option value="">Choose an agent</option>
        {withEngine.map((each) => (
          <option key={each.id} value={each.id}>
            {each.name}
          </option>
        ))}
      </select>
      {agent?.engine_url && (
        <Threads key={agent.id} agentId={agent.id} engineUrl={agent.engine_url} onAdd={props.onAdd} />
      )}
    </fieldset>
  );
}
