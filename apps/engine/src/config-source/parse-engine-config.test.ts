import { randomBytes } from 'node:crypto';
import { createSecretBox } from '@agentplane/db';
import { describe, expect, it } from '@jest/globals';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { createSecretOpener, EngineConfigError, parseEngineConfig } from './parse-engine-config.js';

const key = randomBytes(32).toString('base64');
const withHeader = (value: string) =>
  makeLlmEngineConfig({
    mcpServers: [
      { name: 'tools', transport: 'streamable_http', url: 'https://mcp.example.com', headers: { 'X-Key': value } },
    ],
  });

describe('parseEngineConfig', () => {
  it('fills defaults and opens sealed secrets', () => {
    const config = parseEngineConfig(withHeader(createSecretBox(key).seal('s3cret')), createSecretOpener(key));
    expect(config.mcp_servers[0]).toMatchObject({
      headers: { 'X-Key': 's3cret' },
      timeoutSeconds: 30,
      terminateOnClose: true,
    });
    expect(config.agent.config).toMatchObject({ maxSteps: 10 });
  });

  it('opens values sealed with a previous key after rotation', () => {
    const oldKey = randomBytes(32).toString('base64');
    const sealed = createSecretBox(oldKey).seal('rotated');
    const config = parseEngineConfig(withHeader(sealed), createSecretOpener(key, [oldKey]));
    expect(config.mcp_servers[0]?.headers).toEqual({ 'X-Key': 'rotated' });
  });

  it('passes plaintext secrets through, so config files need no key', () => {
    expect(parseEngineConfig(withHeader('plain'), createSecretOpener(undefined)).mcp_servers[0]?.headers).toEqual({
      'X-Key': 'plain',
    });
  });

  it('refuses sealed secrets without SECRETS_KEY, or with the wrong key, saying so', () => {
    const sealed = withHeader(createSecretBox(key).seal('s3cret'));
    expect(() => parseEngineConfig(sealed, createSecretOpener(undefined))).toThrow(/SECRETS_KEY is not set/);
    expect(() => parseEngineConfig(sealed, createSecretOpener(randomBytes(32).toString('base64')))).toThrow(
      EngineConfigError,
    );
  });

  it('names the invalid fields', () => {
    const config = makeLlmEngineConfig();
    expect(() =>
      parseEngineConfig({ ...config, sso: { issuer: 'http://evil.example.com' } }, createSecretOpener(undefined)),
    ).toThrow(/sso\.issuer.*sso\.audience|sso\.audience.*sso\.issuer/);
  });
});
