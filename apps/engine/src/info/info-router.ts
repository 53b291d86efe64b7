import { mapEngineConfigSecrets } from '@agentplane/contracts';
import { Router } from 'express';
import { requireBearer } from '../auth/require-bearer.js';
import { getSnapshot, requireSnapshot, type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { describeCapabilities } from './describe-capabilities.js';

const ENDPOINTS = {
  health: '/health',
  run: '/agent/run',
  runs: '/agent/runs',
  config: '/agent/config',
  capabilities: '/agent/capabilities',
  threads: '/agent/threads',
};

export function infoRouter(source: SnapshotSource): Router {
  const router = Router();

  router.get('/', (_req, res) => {
    const snapshot = source.current();
    const agent = snapshot?.config.agent;
    res.json({
      service: 'agentplane-engine',
      agent: agent === undefined ? null : { id: agent.id, name: agent.name, framework: agent.framework },
      config_version: snapshot?.version ?? null,
      endpoints: ENDPOINTS,
    });
  });

  router.get('/agent/capabilities', (_req, res) => {
    res.json(describeCapabilities(requireSnapshot(source)));
  });

  router.get('/agent/config', useSnapshot(source), requireBearer, (_req, res) => {
    const snapshot = getSnapshot(res);
    res
      .set('X-Engine-Config-Version', String(snapshot.version))
      .json(mapEngineConfigSecrets(snapshot.config, () => '[redacted]'));
  });

  return router;
}
