import { randomBytes, randomUUID } from 'node:crypto';
import type { TObservabilityConfigInput } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox, deriveAgentKey } from '@agentplane/db';
import { describe, expect, it } from '@jest/globals';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { createSecretOpener, EngineConfigError, parseEngineConfig } from './parse-engine-config.js';

const platformKey = randomBytes(32).toString('base64');
const agentId = randomUUID();
const keyring = createAgentKeyring(platformKey);
const opener = createSecretOpener({ agentKey: deriveAgentKey(platformKey, agentId), agentId });
const withHeader = (value: string) =>
  makeLlmEngineConfig({
    mcpServers: [
      { name: 'tools', transport: 'streamable_http', url: 'https://mcp.example.com', headers: { 'X-Key': value } },
    ],
  });

describe('parseEngineConfig', () => {
  it('fills defaults and opens sealed secrets', () => {
    const config = parseEngineConfig(withHeader(keyring.boxFor(agentId).seal('s3cret')), opener);
    expect(config.mcp_servers[0]).toMatchObject({
      headers: { 'X-Key': 's3cret' },
      timeoutSeconds: 30,
      terminateOnClose: true,
    });
    expect(config.agent.config).toMatchObject({ maxSteps: 10 });
  });

  it('passes plaintext secrets through, so config files need no key', () => {
    expect(parseEngineConfig(withHeader('plain'), createSecretOpener(undefined)).mcp_servers[0]?.headers).toEqual({
      'X-Key': 'plain',
    });
  });

  it('refuses sealed secrets without an agent key, saying so', () => {
    const sealed = withHeader(keyring.boxFor(agentId).seal('s3cret'));
    expect(() => parseEngineConfig(sealed, createSecretOpener(undefined))).toThrow(/AGENT_KEY/);
  });

  it("refuses another agent's secrets: its key, the platform key, or this key under another agent id", () => {
    const otherAgent = randomUUID();
    const forOtherAgent = withHeader(keyring.boxFor(otherAgent).seal('not yours'));
    expect(() => parseEngineConfig(forOtherAgent, opener)).toThrow(EngineConfigError);
    // Holding the other agent's key but claiming this agent's id: the associated data no longer matches.
    const swapped = createSecretOpener({ agentKey: deriveAgentKey(platformKey, otherAgent), agentId });
    expect(() => parseEngineConfig(forOtherAgent, swapped)).toThrow(/could not be decrypted/);
    const legacy = withHeader(createSecretBox(platformKey).seal('sealed before agent keys'));
    expect(() => parseEngineConfig(legacy, opener)).toThrow(EngineConfigError);
  });

  it('names the invalid fields', () => {
    const config = makeLlmEngineConfig();
    expect(() =>
      parseEngineConfig({ ...config, sso: { issuer: 'http://evil.example.com' } }, createSecretOpener(undefined)),
    ).toThrow(/sso\.issuer.*sso\.audience|sso\.audience.*sso\.issuer/);
  });
});

describe("parseEngineConfig on the agent's trace exporter", () => {
  const withExporter = (observability: TObservabilityConfigInput) => ({ ...makeLlmEngineConfig(), observability });
  const seal = (value: string) => keyring.boxFor(agentId).seal(value);

  it.each<[string, (secret: string) => TObservabilityConfigInput, Record<string, unknown>]>([
    [
      'OTLP header values',
      (secret) => ({ provider: 'OTLP', endpoint: 'https://otel.example.com/v1/traces', headers: { 'X-Key': secret } }),
      { headers: { 'X-Key': 's3cret' } },
    ],
    [
      "Langfuse's secret_key",
      (secret) => ({ provider: 'LANGFUSE', host: 'https://cloud.langfuse.com', public_key: 'pk', secret_key: secret }),
      { public_key: 'pk', secret_key: 's3cret' },
    ],
    [
      "Phoenix's api_key",
      (secret) => ({ provider: 'PHOENIX', endpoint: 'https://phoenix.example.com/v1/traces', api_key: secret }),
      { api_key: 's3cret' },
    ],
  ])('opens %s', (_what, exporter, opened) => {
    const config = parseEngineConfig(withExporter(exporter(seal('s3cret'))), opener);
    expect(config.observability).toMatchObject({ ...opened, capture_content: false });
  });

  it('refuses an exporter secret sealed for another agent, and leaves a config without an exporter at null', () => {
    const foreign = keyring.boxFor(randomUUID()).seal('not yours');
    const exporter = { provider: 'PHOENIX' as const, endpoint: 'https://phoenix.example.com', api_key: foreign };
    expect(() => parseEngineConfig(withExporter(exporter), opener)).toThrow(EngineConfigError);
    expect(parseEngineConfig(makeLlmEngineConfig(), opener).observability).toBeNull();
  });
});
