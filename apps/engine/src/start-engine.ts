// Wires the environment to a running engine: config source, snapshot builder, app, listener.
import { ConfigError, type Logger, type RunningServer, serve } from '@agentplane/server-kit';
import { createEngineApp } from './app.js';
import { createJwksResolver } from './auth/jwks-resolver.js';
import { type ConfigHolder, createConfigHolder } from './config-source/config-holder.js';
import { type ConfigSource, startDbConfigSource } from './config-source/db-config-source.js';
import { createSecretOpener } from './config-source/parse-engine-config.js';
import { FILE_CONFIG_VERSION, readConfigFile } from './config-source/read-config-file.js';
import type { EngineEnv } from './env.js';
import { createAgentSnapshot } from './snapshot/agent-snapshot.js';

export type StartEngineOptions = {
  logger: Logger;
  handleSignals?: boolean;
  keepaliveMs?: number;
};

export type RunningEngine = RunningServer & { holder: ConfigHolder };

export async function startEngine(env: EngineEnv, options: StartEngineOptions): Promise<RunningEngine> {
  const { logger } = options;
  const resolver = createJwksResolver();
  const holder = createConfigHolder({
    openSecret: createSecretOpener(env.secretsKey, env.previousSecretsKeys),
    buildSnapshot: (config, version) =>
      createAgentSnapshot(config, version, {
        resolver,
        oidcFallback: env.oidcFallback,
        managerIssuer: env.managerIssuer,
        authDisabled: env.authDisabled,
        variables: env.variables,
        agentsDir: env.agentsDir,
        databaseUrl: env.databaseUrl,
        logger,
      }),
    logger,
    db: env.source.kind === 'database' ? 'unreachable' : 'not_used',
  });

  let source: ConfigSource | undefined;
  if (env.source.kind === 'file') {
    // A config file that does not load is a deployment mistake: stop with its reason, do not serve 503s.
    const result = await holder.apply(await readConfigFile(env.source.path), FILE_CONFIG_VERSION);
    if (!result.applied) throw new ConfigError(`ENGINE_CONFIG_FILE ${env.source.path}: ${result.reason}`);
  }

  const app = createEngineApp({
    logger,
    holder,
    ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }),
  });
  const running = await serve(app, {
    port: env.port,
    host: env.host,
    logger,
    handleSignals: options.handleSignals ?? false,
    onClose: async () => {
      await source?.stop();
      await holder.close();
    },
  });
  if (env.source.kind === 'database') {
    source = startDbConfigSource({ ...env.source, holder, logger });
  }
  return { ...running, holder };
}
