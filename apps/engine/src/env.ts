import { parseEnv, ZLogLevel, ZPort } from '@agentplane/server-kit';
import { z } from 'zod';

const ZEngineEnv = z.object({
  PORT: ZPort.default(8001),
  HOST: z.string().min(1).default('0.0.0.0'),
  AGENT_ID: z.uuid('must be the UUID of the agent this engine runs').optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  ENGINE_CONFIG_FILE: z.string().min(1).optional(),
  LOG_LEVEL: ZLogLevel,
});

export type EngineConfig = {
  port: number;
  host: string;
  agentId: string | undefined;
  databaseUrl: string | undefined;
  configFile: string | undefined;
  logLevel: string;
};

export function loadEngineConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const parsed = parseEnv(ZEngineEnv, env);
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    agentId: parsed.AGENT_ID,
    databaseUrl: parsed.DATABASE_URL,
    configFile: parsed.ENGINE_CONFIG_FILE,
    logLevel: parsed.LOG_LEVEL,
  };
}
