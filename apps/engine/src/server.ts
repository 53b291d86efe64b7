import { ConfigError, createLogger } from '@agentplane/server-kit';
import { EngineConfigError } from './config-source/parse-engine-config.js';
import { loadEngineEnv } from './env.js';
import { startEngine } from './start-engine.js';

async function main(): Promise<void> {
  const env = loadEngineEnv();
  const logger = createLogger({ name: 'engine', level: env.logLevel });
  await startEngine(env, { logger, handleSignals: true });
}

main().catch((error: unknown) => {
  const expected = error instanceof ConfigError || error instanceof EngineConfigError;
  console.error(expected ? error.message : error);
  process.exit(1);
});
