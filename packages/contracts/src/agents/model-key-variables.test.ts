import { describe, expect, it } from '@jest/globals';
import { isModelKeyVariableAllowed, ZModelApiKeyEnvsSetting } from './model-key-variables.js';

describe('MODEL_API_KEY_ENVS', () => {
  it('reads a comma-separated list of variable names', () => {
    expect(ZModelApiKeyEnvsSetting.parse(' GROQ_API_KEY, ANTHROPIC_API_KEY ,')).toEqual([
      'GROQ_API_KEY',
      'ANTHROPIC_API_KEY',
    ]);
  });

  it.each([
    'SECRETS_KEY',
    'SECRETS_KEY_PREVIOUS',
    'SECRETS_KEY_FILE',
    'DATABASE_URL',
    'TEST_DATABASE_URL',
    'PGPASSWORD',
    'SESSION_SECRET',
    'ENGINE_SECRETS_KEY',
    'AGENT_KEY',
    'OPENAI_API_KEY',
    'database_url',
    'NOT-A-NAME',
  ])('never lists the platform variable or bad name %s', (name) => {
    expect(ZModelApiKeyEnvsSetting.safeParse(`GROQ_API_KEY,${name}`).success).toBe(false);
  });

  it('allows only listed names, and never a platform variable even if it were listed', () => {
    expect(isModelKeyVariableAllowed('GROQ_API_KEY', ['GROQ_API_KEY'])).toBe(true);
    expect(isModelKeyVariableAllowed('HOME', ['GROQ_API_KEY'])).toBe(false);
    expect(isModelKeyVariableAllowed('SECRETS_KEY', ['SECRETS_KEY'])).toBe(false);
  });
});
