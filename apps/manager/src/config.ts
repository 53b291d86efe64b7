import { parseEnv, ZLogLevel, ZPort } from '@agentplane/server-kit';
import { z } from 'zod';

const ZManagerEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: ZPort.default(8000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
  LOG_LEVEL: ZLogLevel,
});

export type ManagerConfig = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  logLevel: string;
};

export function loadManagerConfig(env: NodeJS.ProcessEnv = process.env): ManagerConfig {
  const parsed = parseEnv(ZManagerEnv, env);
  return {
    nodeEnv: parsed.NODE_ENV,
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    logLevel: parsed.LOG_LEVEL,
  };
}
