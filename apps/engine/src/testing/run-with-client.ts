// Drives a run through the real AG-UI client (HttpAgent, whose verifier checks the event order) and
// records every event its pipeline delivered, the result, and the failure if the run failed.
import type { BaseEvent, HttpAgent } from '@ag-ui/client';

export type ClientRun = Awaited<ReturnType<typeof runWithClient>>;

export async function runWithClient(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) {
  const events: BaseEvent[] = [];
  let failure: unknown;
  const result = await agent
    .runAgent(parameters, {
      onEvent: ({ event }) => {
        events.push(event);
      },
      onRunFailed: ({ error }) => {
        failure = error;
      },
    })
    .catch((error: unknown) => {
      failure = error;
      return undefined;
    });
  return { events, result, failure, types: events.map((event) => event.type), last: events.at(-1) };
}
