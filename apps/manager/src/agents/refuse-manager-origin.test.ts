import { AppError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { refuseManagerOrigin } from './refuse-manager-origin.js';

function refusal(engineUrl: string, managerOrigins: string[]): unknown {
  try {
    refuseManagerOrigin(engineUrl, managerOrigins);
    return undefined;
  } catch (error) {
    return error;
  }
}

const expectRefused = (engineUrl: string, managerOrigins: string[]) => {
  const error = refusal(engineUrl, managerOrigins);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).errors?.map((e) => e.path)).toEqual(['engine_url']);
};

describe("an engine_url at the manager's own origin", () => {
  it.each([
    ['as it is', 'https://manager.example.com/api/v1/auth/logout-all'],
    ['in upper case', 'https://MANAGER.Example.COM/'],
    ['with a trailing dot', 'https://manager.example.com./x'],
    ['with its default port written out', 'https://manager.example.com:443'],
    ['over the other scheme on the same port (cookies ignore the scheme)', 'http://manager.example.com:443/'],
  ])('is refused %s', (_how, engineUrl) => {
    expectRefused(engineUrl, ['https://manager.example.com']);
  });

  it.each([
    'http://127.0.0.1:8000/api/v1/agents',
    'http://127.1:8000',
    'http://0x7f000001:8000',
    'http://[::1]:8000',
    'http://[::ffff:127.0.0.1]:8000',
    'http://0.0.0.0:8000',
    'http://localhost.:8000',
    'http://LOCALHOST:8000',
    'http://console.localhost:8000',
  ])('is refused as %s when the manager is on this machine', (engineUrl) => {
    expectRefused(engineUrl, ['http://localhost:8000']);
  });

  it('is refused for any of the origins the manager knows itself by (IPv6 brackets included)', () => {
    expectRefused('http://[2001:db8::1]:8000/', ['https://manager.example.com', 'http://[2001:DB8:0::1]:8000']);
  });

  it.each([
    ['another port of the same host', 'http://localhost:8001', 'http://localhost:8000'],
    ['another host', 'https://engines.example.com', 'https://manager.example.com'],
    ['a sibling subdomain', 'https://engine.manager.example.com', 'https://manager.example.com'],
    ['another scheme, so another default port', 'http://manager.example.com', 'https://manager.example.com'],
  ])('is not refused at %s', (_what, engineUrl, managerOrigin) => {
    expect(refusal(engineUrl, [managerOrigin])).toBeUndefined();
  });
});
