import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { publicOrigin } from './public-origin.js';

const request = (host: string | undefined, protocol = 'http') =>
  ({ protocol, get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) }) as unknown as Request;

describe('publicOrigin', () => {
  it('is ENGINE_PUBLIC_URL when set, whatever the request says', () => {
    expect(publicOrigin(request('evil.example'), 'https://agents.example.com')).toBe('https://agents.example.com');
  });

  it("is the request's scheme and Host otherwise", () => {
    expect(publicOrigin(request('127.0.0.1:8080'), undefined)).toBe('http://127.0.0.1:8080');
    expect(publicOrigin(request('[::1]:80', 'https'), undefined)).toBe('https://[::1]:80');
    expect(publicOrigin(request('engine.internal'), undefined)).toBe('http://engine.internal');
  });

  it('does not build on a Host that is no host (quotes, slashes, none at all)', () => {
    for (const host of ['a"b', 'a/b', 'a b', 'x:99999999', '', undefined]) {
      expect(publicOrigin(request(host), undefined)).toBe('http://localhost');
    }
  });
});
