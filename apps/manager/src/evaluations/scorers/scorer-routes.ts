// /scorers/test: scorers tried on one sample, without running an agent, so a team can see what a
// scorer says before an experiment relies on it. Members and up, since a model judge spends the
// workspace's own model key and calls out through the egress policy; limited per workspace per minute.
import { mapScorerSecrets, type TScorer, ZScorerTestRequest, ZScorerTestResponse } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import type { EgressAllowList, Logger } from '@agentplane/server-kit';
import type { Options } from 'express-rate-limit';
import { PostgresRateLimitStore } from '../../auth/postgres-rate-limit-store.js';
import { tooManyAttempts } from '../../auth/rate-limits.js';
import { createManagerEgressPolicy } from '../../egress/manager-egress-policy.js';
import { refusePrivateUrls } from '../../egress/refuse-private-urls.js';
import type { ApiRouter } from '../../http/api-router.js';
import { currentWorkspace } from '../../http/request-context.js';
import { keepMaskedSecrets } from '../../secrets/keep-masked-secrets.js';
import { compileScorers } from './compile-scorers.js';
import type { ScorerSettings } from './scorer-settings.js';

export type ScorerRouteDependencies = {
  db: Db;
  logger: Logger;
  egressAllow: EgressAllowList;
  settings: ScorerSettings;
};

const RATE_WINDOW_MS = 60_000;
const identity = (value: string) => value;

/** A model judge's base URL at a literal refused address is a 422 before anything is called. */
export function refuseJudgesAtPrivateAddresses(scorers: readonly TScorer[], allow: EgressAllowList): void {
  refusePrivateUrls(
    scorers.flatMap((scorer, index) =>
      scorer.kind === 'model_judge' ? [{ path: `scorers[${index}].model.baseUrl`, url: scorer.model.baseUrl }] : [],
    ),
    allow,
  );
}

export function addScorerRoutes(api: ApiRouter, deps: ScorerRouteDependencies): void {
  const store = new PostgresRateLimitStore(deps.db, 'scorer-test:');
  store.init({ windowMs: RATE_WINDOW_MS } as Options);

  api.add(
    {
      method: 'post',
      path: '/scorers/test',
      operationId: 'testScorers',
      summary: 'Grade one sample with scorers (member or above), without running an agent',
      tag: 'evaluations',
      access: { kind: 'workspace', minRole: 'member' },
      body: ZScorerTestRequest,
      responses: { 200: { description: 'One result per scorer, in order', schema: ZScorerTestResponse } },
      problems: {
        403: 'You are a viewer of the workspace',
        429: 'The workspace tried scorers too often this minute',
      },
    },
    async ({ body }, req, res) => {
      // Secrets here come in the request: a mask stands for nothing stored, and none is ever opened.
      const scorers = body.scorers.map((sent, index) =>
        keepMaskedSecrets({ sent, stored: undefined, mapSecrets: mapScorerSecrets, at: ['scorers', index] }),
      );
      refuseJudgesAtPrivateAddresses(scorers, deps.egressAllow);
      const { totalHits, resetTime } = await store.increment(currentWorkspace(req).id);
      if (totalHits > deps.settings.testsPerMinute) throw tooManyAttempts(resetTime);
      const egress = createManagerEgressPolicy(deps.egressAllow, deps.logger, 'a model judge');
      try {
        const score = compileScorers(
          scorers,
          { judge: { egress, timeoutMs: deps.settings.judgeTimeoutMs, openSecret: identity } },
          ['scorers'],
        );
        res.json({ results: await score(body.sample) });
      } finally {
        await egress.close();
      }
    },
  );
}
