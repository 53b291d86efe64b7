// Valid bodies for each managed resource kind and for agents, with overridable parts.
import { randomUUID } from 'node:crypto';

const suffix = () => randomUUID().slice(0, 8);

export function whatsappBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `whatsapp-${suffix()}`,
    integration: {
      provider: 'WHATSAPP',
      config: { accessToken: 'EAAG-secret-access-token', phoneNumberId: '1065550123', verifyToken: 'verify-me-123' },
      ...overrides,
    },
  };
}

export function mcpServerBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `mcp-${suffix()}`,
    mcp_server: {
      name: 'everything',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer mcp-secret-header' },
      ...overrides,
    },
  };
}

export function ssoBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `sso-${suffix()}`,
    sso: { issuer: 'https://login.example.com/realms/acme', audience: 'agents', ...overrides },
  };
}

export function agentBody(resources: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return {
    name: `agent-${suffix()}`,
    framework: 'LLM',
    agent: { model: { provider: 'mock', name: 'echo' } },
    resources,
    ...overrides,
  };
}
