import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { handleRejoin, handleRunRecord } from './rejoin-handler.js';
import { handleBackgroundRun, handleCancel } from './run-control-handler.js';
import { handleRunEvents, ZRunEventsPage, ZRunEventsQuery } from './run-events-handler.js';
import { handleRun, type RunOptions } from './run-handler.js';
import { ZRunParams } from './run-id-param.js';
import { EVENT_STREAM, ZRunAccepted, ZRunAgentInputDocument, ZRunRecord } from './run-schemas.js';

// The run input is parsed by its handler: whether it is valid depends on the agent's config
// (`forwardedProps.agentplane.multitaskStrategy`), and a module that did not load is a 503 before it.
const RUN_INPUT = { contentType: 'application/json', schema: ZRunAgentInputDocument };
const RUN_INPUT_PROBLEMS = {
  409: 'The runId was used before, or a run of the thread is in progress (under `reject`)',
  413: 'The body is larger than ENGINE_RUN_INPUT_MAX_BYTES',
  415: 'A body that is not application/json',
  422: 'Not a valid AG-UI RunAgentInput, or one holding what cannot be stored (NUL, lone surrogates, `__proto__`)',
  503: "No config is loaded, the agent's module did not load, or the run cannot be recorded",
};
const NO_RUN = 'No run with this id, or not one of the caller';

export const RUN_ROUTES = {
  run: {
    method: 'post',
    path: '/agent/run',
    operationId: 'runAgent',
    summary: 'Runs the agent and streams its AG-UI events',
    tag: 'runs',
    access: { kind: 'bearer', body: 'json' },
    handlerBody: RUN_INPUT,
    responses: { 200: EVENT_STREAM },
    problems: RUN_INPUT_PROBLEMS,
  },
  backgroundRun: {
    method: 'post',
    path: '/agent/runs',
    operationId: 'startBackgroundRun',
    summary: 'Queues a run on its thread and answers at once; it starts on a replica with a free slot (database mode)',
    tag: 'runs',
    access: { kind: 'bearer', body: 'json' },
    handlerBody: RUN_INPUT,
    responses: {
      202: {
        description: 'Queued; Location names the run',
        schema: ZRunAccepted,
        headers: z.object({ Location: z.string() }),
      },
    },
    problems: { ...RUN_INPUT_PROBLEMS, 503: `${RUN_INPUT_PROBLEMS[503]}, or the engine has no database` },
  },
  cancel: {
    method: 'post',
    path: '/agent/runs/:runId/cancel',
    operationId: 'cancelRun',
    summary: 'Cancels a waiting run, or asks the replica running it to stop it',
    tag: 'runs',
    access: { kind: 'bearer' },
    params: ZRunParams,
    responses: { 202: { description: '`cancelled`, or `running`: asked to stop', schema: ZRunAccepted } },
    problems: { 404: NO_RUN, 409: 'The run is already over' },
  },
  record: {
    method: 'get',
    path: '/agent/runs/:runId',
    operationId: 'getRun',
    summary: "A run's record: its status, error and usage",
    tag: 'runs',
    access: { kind: 'bearer' },
    params: ZRunParams,
    responses: { 200: { description: 'The run', schema: ZRunRecord } },
    problems: { 404: NO_RUN },
  },
  events: {
    method: 'get',
    path: '/agent/runs/:runId/events',
    operationId: 'listRunEvents',
    summary: "A run's stored events as JSON, a page at a time, each with the time it was stored",
    tag: 'runs',
    access: { kind: 'bearer' },
    params: ZRunParams,
    query: ZRunEventsQuery,
    responses: { 200: { description: 'A page of events', schema: ZRunEventsPage } },
    problems: {
      404: NO_RUN,
      409: 'The engine stores no run events (ENGINE_RUN_EVENT_LOG=off)',
    },
  },
  rejoin: {
    method: 'get',
    path: '/agent/runs/:runId/stream',
    operationId: 'rejoinRun',
    summary: "A run's events after Last-Event-ID, then the ones still to come until it ends",
    tag: 'runs',
    access: { kind: 'bearer' },
    params: ZRunParams,
    responses: { 200: EVENT_STREAM },
    problems: {
      400: 'A run id or Last-Event-ID that names no event of this run',
      404: NO_RUN,
      409: 'The engine stores no run events (ENGINE_RUN_EVENT_LOG=off)',
    },
  },
} satisfies Record<string, EngineRouteSpec>;

export function addRunRoutes(api: EngineApi, options: RunOptions): void {
  const run = handleRun(options);
  api.add(RUN_ROUTES.run, (_input, req, res) => run(req, res));
  // Runs are records only in database mode; without it the background run is unavailable and the
  // other paths are unknown.
  const { store } = options;
  if (store === undefined) {
    // Refused before its body is read.
    api.add({ ...RUN_ROUTES.backgroundRun, access: { kind: 'bearer' } }, () => {
      throw new AppError('service_unavailable', 'Background runs need the engine to run with a database.');
    });
    return;
  }
  const backgroundRun = handleBackgroundRun(store);
  api.add(RUN_ROUTES.backgroundRun, (_input, req, res) => backgroundRun(req, res));
  api.add(RUN_ROUTES.cancel, handleCancel(store));
  api.add(RUN_ROUTES.record, handleRunRecord(store));
  api.add(RUN_ROUTES.events, handleRunEvents(store));
  api.add(RUN_ROUTES.rejoin, handleRejoin(store, options.keepaliveMs));
}
