// Chat with the agent from its page: the engine streams the run straight to the browser (CORS on the
// engine, CSP connect-src on the console), with a manager-minted token. Threads the engine keeps for
// this user are listed (thread-list.tsx), and opening one loads its history.
import type { Interrupt, Message } from '@ag-ui/client';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { agentKeys } from '../agents/agent-api';
import { ThreadRuns, threadRunsKey } from '../run-view/thread-runs';
import { engineTokenSource, getFromEngine } from './engine-token';
import { InterruptPanel } from './interrupt-panel';
import { ThreadList, threadListKey } from './thread-list';
import { TOOL_APPROVAL, ToolApprovalCards } from './tool-approval-cards';
import { Transcript } from './transcript';
import { useAgentChat } from './use-agent-chat';

type Thread = { thread_id: string; messages: Message[]; interrupts?: Interrupt[] };

const NO_MESSAGES: Message[] = [];

export function Playground({ agentId, engineUrl }: { agentId: string; engineUrl: string }) {
  const token = useMemo(() => engineTokenSource(agentId), [agentId]);
  const queryClient = useQueryClient();
  const [thread, setThread] = useState<{ id: string; messages: Message[]; interrupts?: Interrupt[] }>(() => ({
    id: crypto.randomUUID(),
    messages: NO_MESSAGES,
  }));
  const open = async (threadId: string) => {
    const read = await getFromEngine<Thread>(
      engineUrl,
      `/agent/threads/${encodeURIComponent(threadId)}`,
      await token(),
    );
    setThread({ id: threadId, messages: read.messages, interrupts: read.interrupts });
  };
  return (
    <section aria-labelledby="playground-heading" className="playground">
      <h2 id="playground-heading">Playground</h2>
      <ThreadList
        engineUrl={engineUrl}
        agentId={agentId}
        token={token}
        currentId={thread.id}
        onOpen={(threadId) => void open(threadId)}
        onNew={() => setThread({ id: crypto.randomUUID(), messages: NO_MESSAGES })}
      />
      <Chat
        key={thread.id}
        agentId={agentId}
        engineUrl={engineUrl}
        threadId={thread.id}
        initialMessages={thread.messages}
        initialInterrupts={thread.interrupts}
        token={token}
        onRunEnd={() => {
          void queryClient.invalidateQueries({ queryKey: threadListKey(engineUrl, agentId) });
          void queryClient.invalidateQueries({ queryKey: threadRunsKey(engineUrl) });
          // The run is in the agent's runs and usage now.
          void queryClient.invalidateQueries({ queryKey: agentKeys.runs(agentId) });
          void queryClient.invalidateQueries({ queryKey: agentKeys.usage(agentId) });
        }}
      />
    </section>
  );
}

function Chat(props: {
  agentId: string;
  engineUrl: string;
  threadId: string;
  initialMessages: Message[];
  initialInterrupts?: Interrupt[];
  token: () => Promise<string>;
  onRunEnd: () => void;
}) {
  const chat = useAgentChat(props);
  const [text, setText] = useState('');
  const id = useId();
  const send = async () => {
    const message = text.trim();
    if (!message) return;
    setText('');
    await chat.send(message);
    props.onRunEnd();
  };
  return (
    <div className="chat">
      <Transcript
        messages={chat.messages}
        awaitingApproval={
          new Set(
            chat.interrupts.flatMap((interrupt) =>
              interrupt.reason === TOOL_APPROVAL ? [interrupt.toolCallId ?? ''] : [],
            ),
          )
        }
        runLink={(messageId) => {
          const runId = chat.runOf.get(messageId);
          return (
            runId && (
              <Link className="run-link" to={`/agents/${props.agentId}/runs/${encodeURIComponent(runId)}`}>
                Run details
              </Link>
            )
          );
        }}
      />
      {chat.error && (
        <p role="alert" className="problem">
          Run failed: {chat.error}
        </p>
      )}
      <ThreadRuns agentId={props.agentId} engineUrl={props.engineUrl} threadId={props.threadId} token={props.token} />
      <ToolApprovalCards
        interrupts={chat.interrupts}
        onResume={async (answers) => {
          await chat.answer(answers);
          props.onRunEnd();
        }}
      />
      <InterruptPanel
        interrupts={chat.interrupts.filter((interrupt) => interrupt.reason !== TOOL_APPROVAL)}
        onResume={(payload) => void chat.resume(payload)}
      />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label htmlFor={`${id}-message`}>Message</label>
        <textarea id={`${id}-message`} value={text} rows={2} onChange={(event) => setText(event.target.value)} />
        <button type="submit" disabled={chat.status === 'running'}>
          Send
        </button>
        {chat.status === 'running' && (
          <button type="button" onClick={chat.stop}>
            Stop
          </button>
        )}
      </form>
      <details>
        <summary>State</summary>
        <pre>{JSON.stringify(chat.state ?? {}, null, 2)}</pre>
      </details>
    </div>
  );
}
