// AG-UI's HttpAgent for an agentplane engine, with connect(): connectAgent() joins the thread's run
// that is still going (after a page reload or a dropped connection) through the engine's rejoin
// endpoint, GET /agent/runs/{id}/stream. runAgent() is HttpAgent's own, unchanged.

import type { AgentSubscriber } from '@ag-ui/client';
import {
  AGUIError,
  type BaseEvent,
  HttpAgent,
  type RunAgentInput,
  type RunAgentParameters,
  type RunAgentResult,
  runHttpRequest,
  transformHttpEventStream,
} from '@ag-ui/client';
import { defer, EMPTY, type Observable, switchMap } from 'rxjs';

type RunItem = { id: string; status: string };

/** The engine's run statuses of a run that has not ended yet. */
const UNFINISHED = new Set(['pending', 'running']);

export class ResumableHttpAgent extends HttpAgent {
  /** The run connectAgent() was asked for by id, else undefined: the thread's running run is looked up. */
  private requestedRunId: string | undefined;

  /**
   * Joins a run of this agent's thread that has not ended: the one named by `parameters.runId`, else
   * the thread's newest unfinished run. Resolves once the run ends; with no such run, at once and
   * without events. The whole run is replayed from its RUN_STARTED, since AG-UI applies a run's events
   * from its start: give a fresh agent the thread's messages from before the run, not a half-applied run.
   */
  override async connectAgent(parameters?: RunAgentParameters, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    this.requestedRunId = parameters?.runId;
    // As runAgent does: abortRun() stops this connection, not one that an earlier abortRun() stopped.
    this.abortController = new AbortController();
    try {
      return await super.connectAgent(parameters, subscriber);
    } finally {
      this.requestedRunId = undefined;
    }
  }

  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    const requested = this.requestedRunId;
    return defer(() =>
      requested === undefined ? this.findUnfinishedRun(input.threadId) : Promise.resolve(requested),
    ).pipe(
      switchMap((runId) =>
        runId === undefined
          ? EMPTY
          : transformHttpEventStream(
              runHttpRequest(() =>
                this.fetch(this.engineUrl(`runs/${encodeURIComponent(runId)}/stream`), {
                  headers: { ...this.headers, Accept: 'text/event-stream' },
                  signal: this.abortController.signal,
                }),
              ),
              this.debugLogger,
            ),
      ),
    );
  }

  /** The thread's newest run that has not ended; the engine lists a thread's runs newest first. */
  private async findUnfinishedRun(threadId: string): Promise<string | undefined> {
    const response = await this.fetch(this.engineUrl(`threads/${encodeURIComponent(threadId)}/runs?limit=10`), {
      headers: { ...this.headers, Accept: 'application/json' },
      signal: this.abortController.signal,
    });
    // A thread the engine does not know has nothing to resume.
    if (response.status === 404) return undefined;
    if (!response.ok) throw new AGUIError(`Listing the thread's runs failed: HTTP ${response.status}`);
    const runs = (await response.json()) as RunItem[];
    return runs.find((run) => UNFINISHED.has(run.status))?.id;
  }

  /** The agent's run url is `<engine>/agent/run`; its other endpoints are beside it, under /agent/. */
  private engineUrl(path: string): string {
    return new URL(path, this.url).toString();
  }
}
