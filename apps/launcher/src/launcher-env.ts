// The settings the launcher itself reads (the rest of its environment is passed on to the services,
// whose own schemas check it).
import { parseEnv } from '@agentplane/server-kit';
import { z } from 'zod';

export const ZLauncherEnv = z.object({
  LOG_FORMAT: z
    .enum(['pretty', 'json'], 'must be "pretty" or "json"')
    .optional()
    .describe(
      "How `pnpm start` prints the services' logs: `pretty`, one readable line per entry (per request for " +
        "HTTP), or `json`, pino's lines as the services write them. Unset: pretty when stdout is a terminal, " +
        'JSON otherwise (piped, redirected, in a container).',
    ),
});

export type LauncherEnv = z.output<typeof ZLauncherEnv>;

/** An empty variable is an unset one, as for the launcher's other settings. */
export function readLauncherEnv(env: NodeJS.ProcessEnv = process.env): LauncherEnv {
  return parseEnv(ZLauncherEnv, { LOG_FORMAT: env.LOG_FORMAT || undefined });
}
