import { A2A_ENDPOINT_PATH, AGENT_CARD_PATH, mapEngineConfigSecrets } from '@agentplane/contracts';
import { z } from 'zod';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { getSnapshot, requireSnapshot, type SnapshotSource } from '../snapshot/use-snapshot.js';
import { describeCapabilities } from './describe-capabilities.js';

const ENDPOINTS = {
  health: '/health',
  run: '/agent/run',
  runs: '/agent/runs',
  config: '/agent/config',
  capabilities: '/agent/capabilities',
  threads: '/agent/threads',
  mcp: '/mcp',
  openapi: '/openapi.json',
  a2a: A2A_ENDPOINT_PATH,
  agent_card: AGENT_CARD_PATH,
};

const ZEngineInfo = z
  .object({
    service: z.literal('agentplane-engine'),
    agent: z.object({ id: z.string(), name: z.string(), framework: z.string() }).nullable(),
    config_version: z.number().int().nullable(),
    endpoints: z.record(z.string(), z.string()),
  })
  .meta({ id: 'EngineInfo' });

const ZJsonObject = z.record(z.string(), z.unknown());

export const INFO_ROUTES = {
  info: {
    method: 'get',
    path: '/',
    operationId: 'getEngineInfo',
    summary: 'Which agent this is, its config version, and its endpoints',
    tag: 'agent',
    access: { kind: 'public' },
    responses: { 200: { description: 'The agent, or null while no config is loaded', schema: ZEngineInfo } },
  },
  capabilities: {
    method: 'get',
    path: '/agent/capabilities',
    operationId: 'getCapabilities',
    summary: "What the agent can do: its framework, input and output schemas, and AG-UI's AgentCapabilities",
    tag: 'agent',
    access: { kind: 'public' },
    responses: { 200: { description: 'The capabilities', schema: ZJsonObject } },
    problems: { 503: 'No config is loaded yet, or the agent was deleted' },
  },
  config: {
    method: 'get',
    path: '/agent/config',
    operationId: 'getAgentConfig',
    summary: "The config the agent runs, its secrets replaced by '[redacted]'",
    tag: 'agent',
    access: { kind: 'bearer' },
    responses: {
      200: {
        description: 'The engine config; X-Engine-Config-Version says its version',
        schema: ZJsonObject,
        headers: z.object({ 'X-Engine-Config-Version': z.string() }),
      },
    },
    problems: { 503: 'No config is loaded yet, or the agent was deleted' },
  },
} satisfies Record<string, EngineRouteSpec>;

export function addInfoRoutes(api: EngineApi, source: SnapshotSource): void {
  api.add(INFO_ROUTES.info, (_input, _req, res) => {
    const snapshot = source.current();
    const agent = snapshot?.config.agent;
    res.json({
      service: 'agentplane-engine',
      agent: agent === undefined ? null : { id: agent.id, name: agent.name, framework: agent.framework },
      config_version: snapshot?.version ?? null,
      endpoints: ENDPOINTS,
    });
  });

  api.add(INFO_ROUTES.capabilities, (_input, _req, res) => {
    res.json(describeCapabilities(requireSnapshot(source)));
  });

  api.add(INFO_ROUTES.config, (_input, _req, res) => {
    const snapshot = getSnapshot(res);
    res
      .set('X-Engine-Config-Version', String(snapshot.version))
      .json(mapEngineConfigSecrets(snapshot.config, () => '[redacted]'));
  });
}
