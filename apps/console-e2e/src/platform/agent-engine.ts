// An engine for an agent the journey created, deployed as an operator would: its own process, started
// on the credentials the manager issued for that agent, trusting the manager's tokens and letting the
// console's origin call it. `pnpm start` runs one engine, the demo agent's; any other agent needs this.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { TEngineCredentials } from '@agentplane/contracts';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/server.js', import.meta.url));

export type AgentEngine = { url: string; stop: () => Promise<void> };

export async function startAgentEngine(options: {
  credentials: TEngineCredentials;
  /** The manager's ISSUER_URL, whose tokens the console streams with. */
  managerIssuer: string;
  consoleOrigin: string;
  /** The operator's MCP_STDIO_COMMANDS, as the launcher gives its own engine. */
  stdioCommands: string;
}): Promise<AgentEngine> {
  const { DATABASE_URL: _platformDatabase, SECRETS_KEY: _platformKey, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, [ENGINE], {
    env: {
      ...inherited,
      AGENT_ID: options.credentials.agent_id,
      DATABASE_URL: options.credentials.database_url,
      AGENT_KEY: options.credentials.agent_key,
      ENGINE_MANAGER_ISSUER: options.managerIssuer,
      ENGINE_CORS_ORIGINS: options.consoleOrigin,
      ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      MCP_STDIO_COMMANDS: options.stdioCommands,
      PORT: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) =>
      Promise.reject(new Error(`the engine exited (code ${code}) before listening`)),
    ),
  ])) as [{ url: string }];
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return { url: message.url, stop };
}
