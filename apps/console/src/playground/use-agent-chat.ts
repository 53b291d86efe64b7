// One conversation with the agent's engine over AG-UI: an HttpAgent (agentplane's resumable one) on
// <engine>/agent/run whose messages and state drive the transcript as the events stream in.
import type { Interrupt, Message, ResumeEntry } from '@ag-ui/client';
import { ResumableHttpAgent } from '@agentplane/agent-client';
import { agentEndpointsOf } from '@agentplane/contracts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { fetchFromEngine } from '../api/engine-fetch';
import { TOOL_APPROVAL } from './tool-approval-cards';

export type ChatStatus = 'idle' | 'running';

/** The problem+json an engine refused a run with, from @ag-ui/client's error ("HTTP 409: {…}"). */
function problemOf(failure: unknown): { detail?: unknown; title?: unknown } | undefined {
  const message = failure instanceof Error ? failure.message : '';
  const body = /^HTTP \d{3}: (\{.*\})$/s.exec(message)?.[1];
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body) as { detail?: unknown; title?: unknown };
  } catch {
    return undefined;
  }
}

/** What a failed run says: the engine's problem (a refused resume names why) over the client's wording. */
function failureMessage(failure: unknown): string {
  const problem = problemOf(failure);
  const said = problem?.detail ?? problem?.title;
  if (typeof said === 'string') return said;
  return failure instanceof Error ? failure.message : String(failure);
}

export function useAgentChat(options: {
  engineUrl: string;
  threadId: string;
  initialMessages: Message[];
  /** The thread's interrupts still open when it was read: a reopened thread answers them too. */
  initialInterrupts?: Interrupt[];
  token: () => Promise<string>;
}) {
  const { engineUrl, threadId, initialMessages, initialInterrupts, token } = options;
  const agent = useMemo(
    () =>
      new ResumableHttpAgent({
        url: agentEndpointsOf(engineUrl).ag_ui,
        threadId,
        initialMessages,
        fetch: fetchFromEngine,
      }),
    [engineUrl, threadId, initialMessages],
  );
  const [messages, setMessages] = useState<Message[]>(initialMessages);
  const [state, setState] = useState<unknown>(agent.state);
  const [error, setError] = useState<string | undefined>();
  const [interrupts, setInterrupts] = useState<Interrupt[]>(initialInterrupts ?? []);
  const [status, setStatus] = useState<ChatStatus>('idle');
  /** The run of this page's each run's last assistant message, by message id. */
  const [runOf, setRunOf] = useState<ReadonlyMap<string, string>>(() => new Map());

  useEffect(() => {
    setMessages(structuredClone(agent.messages) as Message[]);
    const subscription = agent.subscribe({
      // Copies: the agent mutates its arrays in place as deltas arrive.
      onMessagesChanged: ({ messages: next }) => setMessages(structuredClone(next) as Message[]),
      onStateChanged: ({ state: next }) => setState(structuredClone(next)),
      onRunErrorEvent: ({ event }) => setError(event.message),
      onRunFailed: ({ error: failure }) => setError(failureMessage(failure)),
      onRunFinishedEvent: (params) => setInterrupts(params.outcome === 'interrupt' ? params.interrupts : []),
    });
    return () => {
      subscription.unsubscribe();
      agent.abortRun();
    };
  }, [agent]);

  const run = useCallback(
    async (parameters: Parameters<ResumableHttpAgent['runAgent']>[0]) => {
      setError(undefined);
      setStatus('running');
      // Named here, not by the agent, so that the assistant messages it adds can link to the run's view.
      const runId = crypto.randomUUID();
      const before = new Set(agent.messages.map((message) => message.id));
      try {
        agent.headers = { Authorization: `Bearer ${await token()}` };
        await agent.runAgent({ ...parameters, runId });
        return true;
      } catch (failure) {
        setError(failureMessage(failure));
        return false;
      } finally {
        // The run's last assistant message carries the link: one per run, under what it answered.
        const last = agent.messages.findLast((message) => message.role === 'assistant' && !before.has(message.id));
        if (last) setRunOf((known) => new Map([...known, [last.id, runId]]));
        setStatus('idle');
      }
    },
    [agent, token],
  );

  const send = useCallback(
    (text: string) => {
      agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
      return run({});
    },
    [agent, run],
  );

  /** Answers the interrupts the last run ended with (LangGraph's interrupt()), resuming the graph. */
  const resume = useCallback(
    (payload: unknown) => {
      const answers = interrupts
        .filter((interrupt) => interrupt.reason !== TOOL_APPROVAL)
        .map((interrupt) => ({
          interruptId: interrupt.id,
          status: 'resolved' as const,
          payload,
        }));
      setInterrupts([]);
      return run({ resume: answers });
    },
    [interrupts, run],
  );

  /** Resumes with answers made one by one (the tool approval cards); a refused resume keeps them open. */
  const answer = useCallback(
    async (answers: ResumeEntry[]) => {
      const open = interrupts;
      setInterrupts([]);
      if (!(await run({ resume: answers }))) setInterrupts(open);
    },
    [interrupts, run],
  );

  return { messages, runOf, state, error, interrupts, status, send, resume, answer, stop: () => agent.abortRun() };
}
