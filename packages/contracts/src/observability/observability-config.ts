// Where an agent's engine sends its traces: any OTLP backend, Langfuse (over its OTLP endpoint) or Phoenix.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { EGRESS_RULE, makeBaseUrl, ZNonBlankString } from '../common/primitives.js';
import { makeSecretHeaders, ZHeaderSecret } from '../secrets/secret-headers.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { makeSecretQueryUrl, SECRET_QUERY_RULE } from '../secrets/secret-url.js';

export const OBSERVABILITY_PROVIDERS = ['OTLP', 'LANGFUSE', 'PHOENIX'] as const;
export type TObservabilityProvider = (typeof OBSERVABILITY_PROVIDERS)[number];

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type TOtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

const HEADERS_MAX_ENTRIES = 32;

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}

const HTTP_URL_RULE = 'Must be an absolute http(s) URL';
const ZEndpoint = makeSecretQueryUrl(z.string()).refine(isHttpUrl, HTTP_URL_RULE);
// Langfuse's traces path is appended to it.
const ZHost = makeBaseUrl(z.string()).refine(isHttpUrl, HTTP_URL_RULE);

const ZOtlpHeaders = makeSecretHeaders(HEADERS_MAX_ENTRIES, 'Headers sent with every export.');

// Prompts and completions are personal data: they leave the engine only when the agent's owner says so.
const ZCaptureContent = z
  .boolean()
  .default(false)
  .describe('Record prompt and completion text on spans (off by default: it is personal data)');

const ZOtlp = z.strictObject({
  provider: z.literal('OTLP'),
  endpoint: ZEndpoint.describe(
    `The OTLP/HTTP traces endpoint, for example https://otel.example.com/v1/traces. ${SECRET_QUERY_RULE} ${EGRESS_RULE}`,
  ),
  protocol: z.enum(OTLP_PROTOCOLS).default('http/protobuf'),
  headers: ZOtlpHeaders,
  capture_content: ZCaptureContent,
});

const ZLangfuse = z.strictObject({
  provider: z.literal('LANGFUSE'),
  host: ZHost.describe(`The Langfuse host, for example https://cloud.langfuse.com. ${EGRESS_RULE}`),
  public_key: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH),
  secret_key: ZHeaderSecret.min(1).describe(SECRET_FIELD_RULE),
  capture_content: ZCaptureContent,
});

const ZPhoenix = z.strictObject({
  provider: z.literal('PHOENIX'),
  endpoint: ZEndpoint.describe(
    `Phoenix's OTLP/HTTP traces endpoint, for example https://app.phoenix.arize.com/v1/traces. ${SECRET_QUERY_RULE} ${EGRESS_RULE}`,
  ),
  api_key: ZHeaderSecret.min(1).optional().describe(SECRET_FIELD_RULE),
  capture_content: ZCaptureContent,
});

export const ZObservabilityConfig = z
  .discriminatedUnion('provider', [ZOtlp, ZLangfuse, ZPhoenix], {
    error: (issue) =>
      issue.code === 'invalid_union' ? `provider must be one of: ${OBSERVABILITY_PROVIDERS.join(', ')}` : undefined,
  })
  .meta({ id: 'ObservabilityConfig', description: "Where an agent's engine exports its OpenTelemetry traces" });
export type TObservabilityConfig = z.infer<typeof ZObservabilityConfig>;
export type TObservabilityConfigInput = z.input<typeof ZObservabilityConfig>;
