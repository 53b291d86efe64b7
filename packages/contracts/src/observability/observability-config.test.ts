import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../common/format-zod-issues.js';
import { ZObservabilityConfig } from './observability-config.js';
import { ZObservabilityCreate } from './observability-resource.js';

function rejected(input: unknown): { path: string; message: string }[] {
  const result = ZObservabilityConfig.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error);
}

const otlp = { provider: 'OTLP', endpoint: 'https://otel.example.com/v1/traces' };
const langfuse = { provider: 'LANGFUSE', host: 'https://cloud.langfuse.com', public_key: 'pk', secret_key: 'sk' };

describe('ZObservabilityConfig', () => {
  it('fills the defaults: protobuf, no headers, and no prompt or completion text', () => {
    expect(ZObservabilityConfig.parse(otlp)).toEqual({
      ...otlp,
      protocol: 'http/protobuf',
      headers: {},
      capture_content: false,
    });
    expect(
      ZObservabilityConfig.parse({ provider: 'PHOENIX', endpoint: 'https://phoenix.example.com/v1/traces' }),
    ).toEqual({ provider: 'PHOENIX', endpoint: 'https://phoenix.example.com/v1/traces', capture_content: false });
  });

  it('names the providers when the provider is unknown', () => {
    expect(rejected({ ...otlp, provider: 'DATADOG' })).toEqual([
      { path: 'provider', message: 'provider must be one of: OTLP, LANGFUSE, PHOENIX' },
    ]);
  });

  it('refuses what an exporter could not send: a missing key, a header name that is not a token, an unknown field, a URL that is not http(s)', () => {
    expect(rejected({ ...langfuse, secret_key: undefined }).map((issue) => issue.path)).toEqual(['secret_key']);
    expect(rejected({ ...langfuse, secret_key: '' }).map((issue) => issue.path)).toEqual(['secret_key']);
    expect(rejected({ ...otlp, headers: { 'Bad Header': 'x' } }).map((issue) => issue.path)).toEqual([
      'headers["Bad Header"]',
    ]);
    expect(rejected({ ...otlp, headers: { 'X-Key': 'a\r\nInjected: 1' } }).map((issue) => issue.path)).toEqual([
      'headers["X-Key"]',
    ]);
    expect(rejected({ ...otlp, endpoint: 'ftp://otel.example.com' }).map((issue) => issue.path)).toEqual(['endpoint']);
    expect(rejected({ ...otlp, protocol: 'grpc' }).map((issue) => issue.path)).toEqual(['protocol']);
    expect(rejected({ ...otlp, host: 'https://x.example.com' }).map((issue) => issue.path)).toEqual(['host']);
  });
});

describe('ZObservabilityCreate', () => {
  it('takes a name and the config under observability', () => {
    expect(ZObservabilityCreate.parse({ name: 'traces', observability: langfuse })).toEqual({
      name: 'traces',
      observability: { ...langfuse, capture_content: false },
    });
  });
});
