// The settings the launcher itself reads (the rest of its environment is passed on to the services,
// whose own schemas check it), with what the configuration reference says of each.
import { type DocumentedEnv, type EnvDocs, parseEnv } from '@agentplane/server-kit';
import { z } from 'zod';

export const ZLauncherEnv = z.object({
  LOG_FORMAT: z.enum(['pretty', 'json'], 'must be "pretty" or "json"').optional(),
});

export type LauncherEnv = z.output<typeof ZLauncherEnv>;

const LAUNCHER_ENV_DOCS: EnvDocs<typeof ZLauncherEnv.shape> = {
  LOG_FORMAT: {
    description:
      "How `pnpm start` prints the services' logs: `pretty`, one readable line per entry (one per request), " +
      "or `json`, pino's lines as the services write them.",
    default: 'pretty when stdout is a terminal, `json` otherwise (piped, redirected, in a container)',
  },
};

export const LAUNCHER_ENV: DocumentedEnv = { service: 'launcher', schema: ZLauncherEnv, docs: LAUNCHER_ENV_DOCS };

/** An empty variable is an unset one, as for the launcher's other settings. */
export function readLauncherEnv(env: NodeJS.ProcessEnv = process.env): LauncherEnv {
  return parseEnv(ZLauncherEnv, { LOG_FORMAT: env.LOG_FORMAT || undefined });
}
