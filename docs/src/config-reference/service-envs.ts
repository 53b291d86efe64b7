// The services whose environments the configuration reference documents, in the page's order.
import { ENGINE_ENV } from '@agentplane/engine/env-docs';
// `pnpm start`'s own settings; the launcher publishes no subpath exports either.
import { LAUNCHER_ENV } from '@agentplane/launcher/dist/launcher-env.js';
// The manager publishes no subpath exports; its built module is the one its server runs.
import { MANAGER_ENV } from '@agentplane/manager/dist/config-docs.js';
import type { DocumentedEnv } from '@agentplane/server-kit';

export const SERVICE_ENVS: DocumentedEnv[] = [MANAGER_ENV, ENGINE_ENV, LAUNCHER_ENV];
