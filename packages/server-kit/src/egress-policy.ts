// The connect-time egress policy for tenant-chosen URLs (the engine's MCP servers, model baseUrl, SSO
// issuer and JWKS; the manager's webhook endpoints): every connection made through it is checked at the
// address it actually connects to, after DNS, so a name that resolves (or later rebinds) to a refused
// address, and a redirect to one, fail before any byte is sent. Operator-chosen URLs do not go through it.
import { type LookupAddress, lookup as lookupDns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, WebSocket } from 'undici';
import { type EgressAllowList, isAllowedHost, literalAddressOf, refusedRangeOf } from './egress-rules.js';

/** Thrown (as a fetch's `cause`) for a connection the policy refused; nothing was sent. */
export class EgressRefusedError extends Error {
  override name = 'EgressRefusedError';
  readonly code = 'EGRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
    hint?: string,
  ) {
    super(
      `The egress policy refuses ${address}${host === address ? '' : ` (${host})`}, a ${range} address${hint === undefined ? '' : `; ${hint}`}`,
    );
  }
}

export type EgressPolicy = {
  /** fetch whose every connection, redirects included, is checked. */
  fetch: typeof globalThis.fetch;
  /** A WebSocket whose handshake connection is checked. */
  openWebSocket: (url: URL, protocols: string[]) => WebSocket;
  /** What it allows and whom it tells: a thread of its own (the span export's) builds the same checks from them. */
  options: EgressPolicyOptions;
  close: () => Promise<void>;
};

/** True when `error` or one of its causes is a refusal by the egress policy. */
export function isEgressRefusal(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof EgressRefusedError) return true;
    current = current.cause;
  }
  return false;
}

export type EgressPolicyOptions = {
  allow: EgressAllowList;
  /** Told of every refused connection: clients often wrap the error in one of their own, this sees it whole. */
  onRefused: (refusal: EgressRefusedError) => void;
  /** Ends every refusal's message: which setting the operator changes to allow the address. */
  hint?: string;
};

function findRefusal(host: string, address: string, { allow, onRefused, hint }: EgressPolicyOptions) {
  const range = refusedRangeOf(address, allow);
  if (range === undefined) return undefined;
  const refusal = new EgressRefusedError(host, address, range, hint);
  onRefused(refusal);
  return refusal;
}

function findFirstRefusal(host: string, addresses: LookupAddress[], policy: EgressPolicyOptions) {
  for (const { address } of addresses) {
    const refusal = findRefusal(host, address, policy);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** dns.lookup, refusing a name any of whose addresses is refused (whichever one the socket would try). */
function createCheckingLookup(policy: EgressPolicyOptions): LookupFunction {
  return (hostname, options, callback) => {
    lookupDns(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = isAllowedHost(hostname, policy.allow) ? undefined : findFirstRefusal(hostname, addresses, policy);
      if (refused !== undefined) {
        callback(refused, '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (error: null, all: typeof addresses) => void)(null, addresses);
        return;
      }
      const [first] = addresses;
      if (first === undefined) callback(new Error(`${hostname} has no address`), '', 0);
      else callback(null, first.address, first.family);
    });
  };
}

type CreateConnection = (
  options: { host?: string | null },
  callback: (error: Error | null, socket?: Socket) => void,
) => Socket | undefined;

/**
 * A node:http(s) Agent whose every connection is checked, for clients built on node:http (the OTLP
 * exporter): the checking lookup, and a literal address, which sockets never look up, judged before connecting.
 */
export function createCheckedHttpAgent(protocol: string, policy: EgressPolicyOptions): http.Agent {
  const options = { keepAlive: true, lookup: createCheckingLookup(policy) };
  const agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  const connect = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (connection, callback) => {
    const literal = literalAddressOf(connection.host ?? '');
    const refused = literal === undefined ? undefined : findRefusal(literal, literal, policy);
    if (refused === undefined) return connect(connection, callback);
    callback(refused);
    return undefined;
  };
  return agent;
}

export function createEgressPolicy(policy: EgressPolicyOptions): EgressPolicy {
  const connect = buildConnector({ lookup: createCheckingLookup(policy) });
  const dispatcher = new Agent({
    // Sockets skip the lookup for a literal address, so it is judged here, before connecting.
    connect: (target, callback) => {
      const literal = literalAddressOf(target.hostname);
      const refused = literal === undefined ? undefined : findRefusal(literal, literal, policy);
      if (refused !== undefined) callback(refused, null);
      else connect(target, callback);
    },
  });
  // undici's own fetch and WebSocket, so that its Agent is the dispatcher they understand; its
  // Response is the web standard one the callers (MCP SDK, openai, jose) read.
  const fetch = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher })) as unknown as typeof globalThis.fetch;
  return {
    fetch,
    openWebSocket: (url, protocols) => new WebSocket(url, { protocols, dispatcher }),
    options: policy,
    close: () => dispatcher.close(),
  };
}
