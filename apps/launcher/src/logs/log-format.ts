import type { LauncherEnv } from '../launcher-env.js';

export type LogFormat = 'pretty' | 'json';

/** LOG_FORMAT when it is set; otherwise readable lines for a person at a terminal, JSON for a machine. */
export function chooseLogFormat(setting: LauncherEnv['LOG_FORMAT'], stdoutIsTty: boolean): LogFormat {
  return setting ?? (stdoutIsTty ? 'pretty' : 'json');
}
