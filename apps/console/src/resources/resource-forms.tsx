// What each managed resource kind's pages need beyond its name: the contracts schema its form is
// validated with, the fields of its typed object, a blank body, a summary for the list, and its calls.
import {
  MCP_TRANSPORTS,
  ZGuardrailCreate,
  ZIntegrationCreate,
  ZMcpServerCreate,
  ZObservabilityCreate,
  ZSsoCreate,
} from '@agentplane/contracts';
import type { ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import type { z } from 'zod';
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';
import { errorAt, Field, optionalNumber, optionalText } from '../ui/field';
import { LinesField, MapField } from '../ui/list-fields';
import { blankGuardrail, GuardrailFields, guardrailSummary } from './guardrail-fields';
import { blankIntegration, IntegrationFields, integrationSummary } from './integrations/integration-fields';
import { blankObservability, ObservabilityFields } from './observability-fields';
import type { ResourceKind } from './resource-kinds';

export type Resource = {
  id: string;
  name: string;
  agent_count: number;
  created_at: string;
  updated_at: string;
} & Record<string, unknown>;

type Query = { limit?: string; offset?: string; secrets?: 'masked' };
type ResourcePath =
  | '/api/v1/integrations/'
  | '/api/v1/mcp-servers/'
  | '/api/v1/sso/'
  | '/api/v1/observability/'
  | '/api/v1/guardrails/';

export type ResourceForm = {
  schema: z.ZodType<FieldValues, FieldValues>;
  /** The typed object's key in bodies and responses. */
  key: 'integration' | 'mcp_server' | 'sso' | 'observability' | 'guardrail';
  blank: () => Record<string, unknown>;
  /** The list's column about the typed object: its heading, and a cell. */
  summaryHeader?: string;
  summary: (resource: Resource) => string;
  Fields: (props: { form: UseFormReturn<FieldValues> }) => ReactNode;
  list: (query: Query) => Promise<{ items: Resource[]; total: number }>;
  get: (id: string, query: Query) => Promise<Resource>;
  create: (body: unknown) => Promise<Resource>;
  update: (id: string, body: unknown) => Promise<Resource>;
  remove: (id: string) => Promise<unknown>;
};

// The kinds answer the same verbs on their own collection; their types come from the schema.
function callsOf(collection: ResourcePath) {
  const item = `${collection}{id}` as '/api/v1/mcp-servers/{id}';
  const base = collection as '/api/v1/mcp-servers/';
  const path = (id: string) => ({ path: { id } });
  return {
    list: (query: Query) =>
      expectPage(api.GET(base, { params: { query } })) as Promise<{ items: Resource[]; total: number }>,
    get: (id: string, query: Query) => expectOk(api.GET(item, { params: { ...path(id), query } })) as Promise<Resource>,
    create: (body: unknown) =>
      expectOk(api.POST(base, { body: body as Schemas['McpServerCreate'] })) as Promise<Resource>,
    update: (id: string, body: unknown) =>
      expectOk(api.PATCH(item, { params: path(id), body: body as Schemas['McpServerUpdate'] })) as Promise<Resource>,
    remove: (id: string) => expectOk(api.DELETE(item, { params: path(id) })),
  };
}

function McpServerFields({ form }: { form: UseFormReturn<FieldValues> }) {
  const { register, control } = form;
  const errors = form.formState.errors;
  const error = (name: string) => errorAt(errors, `mcp_server.${name}`);
  return (
    <fieldset>
      <legend>MCP server</legend>
      <Field label="Server name" error={error('name')} hint="The name tools are prefixed with">
        <input {...register('mcp_server.name')} />
      </Field>
      <Field label="Transport" error={error('transport')}>
        <select {...register('mcp_server.transport')}>
          {MCP_TRANSPORTS.map((transport) => (
            <option key={transport}>{transport}</option>
          ))}
        </select>
      </Field>
      <Field
        label="Agent id"
        error={error('agent_id')}
        hint="For agent: another agent of this workspace, called as a tool"
      >
        <input {...register('mcp_server.agent_id', optionalText)} />
      </Field>
      <Field label="URL" error={error('url')} hint="For streamable_http, sse and websocket">
        <input {...register('mcp_server.url', optionalText)} />
      </Field>
      <Field label="Command" error={error('command')} hint="For stdio: one the operator allows">
        <input {...register('mcp_server.command', optionalText)} />
      </Field>
      <LinesField control={control} name="mcp_server.args" label="Arguments" error={error('args')} />
      <Field label="Working directory" error={error('cwd')}>
        <input {...register('mcp_server.cwd', optionalText)} />
      </Field>
      <MapField control={control} name="mcp_server.headers" label="Headers" separator=":" error={error('headers')} />
      <MapField control={control} name="mcp_server.env" label="Environment" separator="=" error={error('env')} />
      <Field label="Timeout seconds" error={error('timeoutSeconds')}>
        <input type="number" step="any" {...register('mcp_server.timeoutSeconds', optionalNumber)} />
      </Field>
      <Field label="SSE stream read timeout, in seconds" error={error('sseReadTimeoutSeconds')}>
        <input type="number" step="any" {...register('mcp_server.sseReadTimeoutSeconds', optionalNumber)} />
      </Field>
      <div className="checkbox">
        <input id="terminate-on-close" type="checkbox" {...register('mcp_server.terminateOnClose')} />
        <label htmlFor="terminate-on-close">Terminate on close</label>
      </div>
    </fieldset>
  );
}

function SsoFields({ form }: { form: UseFormReturn<FieldValues> }) {
  const { register, control } = form;
  const errors = form.formState.errors;
  const error = (name: string) => errorAt(errors, `sso.${name}`);
  return (
    <fieldset>
      <legend>SSO config</legend>
      <div className="checkbox">
        <input id="sso-enabled" type="checkbox" {...register('sso.enabled')} />
        <label htmlFor="sso-enabled">Enabled</label>
      </div>
      <Field label="Issuer" error={error('issuer')}>
        <input {...register('sso.issuer')} />
      </Field>
      <Field label="Audience" error={error('audience')}>
        <input {...register('sso.audience')} />
      </Field>
      <Field label="JWKS URI" error={error('jwksUri')}>
        <input {...register('sso.jwksUri', optionalText)} />
      </Field>
      <LinesField
        control={control}
        name="sso.algorithms"
        label="Algorithms"
        error={error('algorithms')}
        emptyAsAbsent
      />
      <LinesField
        control={control}
        name="sso.allowedEmails"
        label="Allowed emails"
        error={error('allowedEmails')}
        emptyAsAbsent
      />
      <LinesField
        control={control}
        name="sso.allowedDomains"
        label="Allowed domains"
        error={error('allowedDomains')}
        emptyAsAbsent
      />
    </fieldset>
  );
}

const FORMS: Record<ResourceKind['id'], ResourceForm> = {
  'mcp-servers': {
    schema: ZMcpServerCreate,
    key: 'mcp_server',
    blank: () => ({
      name: '',
      mcp_server: { name: '', transport: 'streamable_http', args: [], headers: {}, env: {}, terminateOnClose: true },
    }),
    summary: (resource) => {
      const server = resource.mcp_server as Schemas['MCPServer'];
      return `${server.transport} ${server.url ?? [server.command, ...(server.args ?? [])].join(' ')}`;
    },
    Fields: McpServerFields,
    ...callsOf('/api/v1/mcp-servers/'),
  },
  integrations: {
    schema: ZIntegrationCreate,
    key: 'integration',
    blank: () => ({ name: '', integration: blankIntegration('WHATSAPP') }),
    summaryHeader: 'Provider',
    summary: (resource) => integrationSummary(resource.integration as Schemas['IntegrationConfig']),
    Fields: IntegrationFields,
    ...callsOf('/api/v1/integrations/'),
  },
  sso: {
    schema: ZSsoCreate,
    key: 'sso',
    blank: () => ({ name: '', sso: { enabled: true, issuer: '', audience: '' } }),
    summary: (resource) => (resource.sso as Schemas['SsoConfig']).issuer,
    Fields: SsoFields,
    ...callsOf('/api/v1/sso/'),
  },
  observability: {
    schema: ZObservabilityCreate,
    key: 'observability',
    blank: () => ({ name: '', observability: blankObservability('OTLP') }),
    summary: (resource) => {
      const config = resource.observability as { provider: string; endpoint?: string; host?: string };
      return `${config.provider} ${config.endpoint ?? config.host ?? ''}`;
    },
    Fields: ObservabilityFields,
    ...callsOf('/api/v1/observability/'),
  },
  guardrails: {
    schema: ZGuardrailCreate,
    key: 'guardrail',
    blank: blankGuardrail,
    summaryHeader: 'Rules',
    summary: (resource) => guardrailSummary(resource.guardrail as Parameters<typeof guardrailSummary>[0]),
    Fields: GuardrailFields,
    ...callsOf('/api/v1/guardrails/'),
  },
};

export function resourceFormOf(kind: ResourceKind): ResourceForm {
  return FORMS[kind.id];
}
