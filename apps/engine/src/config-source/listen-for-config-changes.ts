// LISTENs for the manager's `NOTIFY engine_config_changed, '<agent id>'`. Every (re)connect counts as a
// change, because notifications sent while the connection was away are gone.
import type { Logger } from '@agentplane/server-kit';
import { listenOnChannel } from '../listen/listen-on-channel.js';

export const CONFIG_CHANNEL = 'engine_config_changed';

export type ConfigListenerOptions = {
  databaseUrl: string;
  agentId: string;
  onChange: () => void;
  logger: Logger;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export function listenForConfigChanges({ agentId, onChange, ...options }: ConfigListenerOptions): {
  stop: () => Promise<void>;
} {
  return listenOnChannel({
    ...options,
    channel: CONFIG_CHANNEL,
    onNotification: (payload) => {
      if (payload === agentId) onChange();
    },
    onConnect: onChange,
  });
}
