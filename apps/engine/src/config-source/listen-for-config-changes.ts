// LISTENs for the manager's NOTIFY on the agent's config channel. Any notification there, whatever its
// payload, and every (re)connect (notifications sent while the connection was away are gone) only make
// the engine read its own row again.
import type { Logger } from '@agentplane/server-kit';
import { listenOnChannel } from '../listen/listen-on-channel.js';

export type ConfigListenerOptions = {
  databaseUrl: string;
  agentId: string;
  onChange: () => void;
  logger: Logger;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export function listenForConfigChanges({ onChange, ...options }: ConfigListenerOptions): {
  stop: () => Promise<void>;
} {
  return listenOnChannel({ ...options, channel: 'config', onNotification: onChange, onConnect: onChange });
}
