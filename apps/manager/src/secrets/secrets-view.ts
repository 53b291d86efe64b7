// Who sees secret values in a response. Viewers never do; anyone may ask for masks instead
// (`?secrets=masked`), so a frontend can show and round-trip a form without holding secrets.
import { maskSecret, type SecretTransform, type TRole, type TSecretsQuery } from '@agentplane/contracts';
import type { Request } from 'express';
import { currentWorkspace } from '../http/request-context.js';

export type SecretsView = 'plain' | 'masked';

export function secretsViewOf(req: Request, query: TSecretsQuery = {}): SecretsView {
  const role: TRole = currentWorkspace(req).role;
  return role === 'viewer' || query.secrets === 'masked' ? 'masked' : 'plain';
}

const asIs: SecretTransform = (value) => value;

/**
 * What a response shows in place of each (opened) secret. An engine_config's agent-call credential is
 * masked for every role: it is the engine's, and with it a person could call other agents as this one.
 */
export function showSecret(view: SecretsView): SecretTransform {
  const shown = view === 'masked' ? maskSecret : asIs;
  return (value, path) => (path[0] === 'agent_calls' ? maskSecret(value) : shown(value, path));
}
