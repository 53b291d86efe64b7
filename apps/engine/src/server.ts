import { ConfigError, createLogger, serve } from '@agentplane/server-kit';
import { createEngineApp } from './app.js';
import { loadEngineConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadEngineConfig();
  const logger = createLogger({ name: 'engine', level: config.logLevel });
  const app = createEngineApp({ logger });
  await serve(app, { port: config.port, host: config.host, logger, handleSignals: true });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
