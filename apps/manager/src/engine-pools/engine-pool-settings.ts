// The operator's engine pools (ENGINE_POOLS, DEFAULT_ENGINE_POOL): their names and the public base URLs
// their engines answer on, and where new agents go by default.
import { type TDeployment, ZEngineUrl } from '@agentplane/contracts';
import { type EngineRoleSettings, POOL_NAME } from '@agentplane/db';
import { z } from 'zod';

export type EnginePoolSettings = {
  /** Each pool's public base URL (no trailing slash) by name, as ENGINE_POOLS lists them. */
  urls: ReadonlyMap<string, string>;
  /** DEFAULT_ENGINE_POOL as a placement; dedicated without it. */
  defaultDeployment: TDeployment;
  /** CONNECTION LIMIT (ENGINE_POOL_DB_CONNECTION_LIMIT) and session timeouts of every pool role. */
  roles: EngineRoleSettings;
};

/** `name=publicBaseUrl,...`: the pools by name, each URL without a trailing slash. */
export const ZEnginePoolsSetting = z.string().transform((text, ctx) => {
  const urls = new Map<string, string>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const separator = entry.indexOf('=');
    const name = separator < 0 ? entry : entry.slice(0, separator).trim();
    const url = separator < 0 ? '' : entry.slice(separator + 1).trim();
    if (!POOL_NAME.test(name)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}": a pool is name=publicBaseUrl, its name a lower-case letter then up to 31 of a-z, 0-9 and _`,
      });
    } else if (urls.has(name)) {
      ctx.addIssue({ code: 'custom', message: `names the pool "${name}" twice` });
    } else if (!ZEngineUrl.safeParse(url).success) {
      ctx.addIssue({
        code: 'custom',
        message: `pool "${name}": its URL must be http(s), without credentials, query or fragment (got "${url}")`,
      });
    } else {
      urls.set(name, url.replace(/\/+$/, ''));
    }
  }
  return urls;
});
