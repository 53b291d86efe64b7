import { describe, expect, it } from '@jest/globals';
import { redactQueryParams } from './request-logger.js';

const SECRETS = new Set(['hub.verify_token']);

describe('redactQueryParams', () => {
  it('replaces the value of a secret parameter and keeps the rest of the URL', () => {
    expect(redactQueryParams('/hook?hub.mode=subscribe&hub.verify_token=s3cret&hub.challenge=42', SECRETS)).toBe(
      '/hook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=42',
    );
  });

  it.each([
    ['a percent-encoded name', '/hook?hub%2Everify_token=s3cret'],
    ['a name in another case', '/hook?HUB.Verify_Token=s3cret'],
    ['a repeated parameter', '/hook?hub.verify_token=s3cret&hub.verify_token=s3cret'],
    ['an array-style name', '/hook?hub.verify_token[]=s3cret'],
    ['a malformed escape beside it', '/hook?%ZZ=1&hub.verify_token=s3cret'],
  ])('redacts %s', (_name, url) => {
    expect(redactQueryParams(url, SECRETS)).not.toContain('s3cret');
  });

  it('leaves URLs without a secret parameter as they are', () => {
    expect(redactQueryParams('/hook?hub.mode=subscribe', SECRETS)).toBe('/hook?hub.mode=subscribe');
    expect(redactQueryParams('/health', SECRETS)).toBe('/health');
  });
});
