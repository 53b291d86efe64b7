import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, parseEnv } from './env.js';

const schema = z.object({
  PORT: z.coerce.number().int().default(8000),
  DATABASE_URL: z.string().min(1),
});

describe('parseEnv', () => {
  it('returns typed values with defaults', () => {
    expect(parseEnv(schema, { DATABASE_URL: 'postgresql://x' })).toEqual({
      PORT: 8000,
      DATABASE_URL: 'postgresql://x',
    });
  });

  it('names every missing or bad variable', () => {
    expect(() => parseEnv(schema, { PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => parseEnv(schema, { PORT: 'eighty' })).toThrow(/PORT:[\s\S]*DATABASE_URL:/);
  });
});
