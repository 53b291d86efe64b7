// What a messaging provider (Slack, Telegram, Discord, Teams, Google Chat, WhatsApp) plugs into the
// one durable inbound queue: how a webhook delivery is checked and read into provider-neutral inbound
// items, and how replies, streamed edits and approval buttons go back through the provider's API. The
// queue, the worker, retries, leases, threads and runs know nothing of any provider.
import type { TEngineIntegration, TIntegrationProvider } from '@agentplane/contracts';

export type IntegrationOf<P extends TIntegrationProvider> = Extract<TEngineIntegration, { provider: P }>;

/**
 * Where a reply goes on the provider (a channel and thread, a chat id, an interaction token, a service
 * URL and conversation): what the adapter read from the delivery, kept with the queued item as JSON.
 */
export type ReplyAddress = Record<string, string>;

/** An attachment is kept as a reference to the provider's copy, never downloaded into the queue. */
export type InboundAttachment = {
  kind: 'image' | 'audio' | 'video' | 'file' | 'other';
  /** The provider's id or URL of the file. */
  ref: string;
  name?: string;
  mimeType?: string;
};

type InboundBase = {
  /** De-duplicates the queue with (agent, integration): Slack's event_id, Telegram's update_id, … */
  providerMessageId: string;
  /** The provider's conversation or thread: one conversation thread of ours, answered in order. */
  conversation: string;
  /** The provider's id of whoever wrote or pressed. */
  sender: string;
  address: ReplyAddress;
};

/** One delivery's content, provider-neutral. */
export type InboundItem =
  | (InboundBase & {
      kind: 'message';
      /** Undefined for content the agent cannot read (a sticker, a voice note): answered with a fixed reply. */
      text: string | undefined;
      attachments: InboundAttachment[];
    })
  | (InboundBase & {
      /** A press of an approval button (ApprovalRequest): resumes the run that asked. */
      kind: 'approval';
      interruptId: string;
      approved: boolean;
    });

/** One webhook request as received: the raw bytes (signatures cover them as sent) and the headers. */
export type WebhookDelivery = {
  rawBody: Buffer;
  /** Lower-case header name to its value; undefined when absent. */
  header: (name: string) => string | undefined;
  /** The URL the provider called, as the engine's public origin sees it (some tokens' audience). */
  url: string;
  /** Milliseconds since the epoch, for timestamp windows: injectable for tests. */
  now: number;
};

/** What the webhook answers the provider: some expect a particular body (a challenge, a deferred ack). */
export type WebhookAnswer = { status: number; contentType: 'application/json' | 'text/plain'; body: string };

export type ReceivedDelivery = {
  answer: WebhookAnswer;
  /** Queued once each, in this order; empty for a handshake or an event that needs no answer. */
  items: InboundItem[];
};

/** A tool call waiting for a human: the message with Approve and Reject buttons. */
export type ApprovalRequest = {
  interruptId: string;
  toolName: string;
  /** What to show above the buttons, already phrased (and truncated) for people. */
  prompt: string;
  /** Only this sender's press counts; the buttons may say so. */
  requester: string;
};

/**
 * A provider API call that failed. `retryable`: a 5xx, a timeout, a network error or a 429 (not a bad
 * token or a bad recipient). `retryAfterMs`: what the provider asked us to wait (Retry-After), a floor.
 */
export class ChannelApiError extends Error {
  override name = 'ChannelApiError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | undefined,
    readonly retryAfterMs?: number,
    /** The provider's own error code (Graph's code, Slack's `error`, Telegram's error_code), for the log. */
    readonly providerCode?: string | number,
  ) {
    super(message);
  }
}

/** Replies on one integration, at the operator's base URL for the provider's API. */
export type ChannelOutbound = {
  /** The provider's longest message, in UTF-16 units of the formatted text: longer replies are split. */
  maxLength: number;
  /** The agent's markdown in the provider's own format (Slack mrkdwn, Telegram HTML, …). */
  format: (markdown: string) => string;
  /** Sends one message (formatted, within maxLength) and returns its id on the provider. */
  post: (address: ReplyAddress, text: string, signal: AbortSignal) => Promise<string>;
  /** Where the provider edits messages: the reply streams, as edits of the message first posted. */
  edit?: (address: ReplyAddress, messageId: string, text: string, signal: AbortSignal) => Promise<void>;
  /** The least time between two edits of one message: the provider's rate limit, honoured. */
  editIntervalMs?: number;
  /** Where the provider has buttons: posts the approval message and returns its id. */
  askApproval?: (address: ReplyAddress, request: ApprovalRequest, signal: AbortSignal) => Promise<string>;
};

/**
 * One per provider and engine process, made by the provider's factory from the operator's settings
 * (its API base URL, timeouts, key set URLs: env.ts). It holds no tenant state: at most a cache of the
 * provider's public keys and of access tokens keyed by integration id.
 */
export type ChannelAdapter<P extends TIntegrationProvider = TIntegrationProvider> = {
  provider: P;
  /** The webhook's path segment: POST /integrations/{slug}/webhook/{integrationId}. */
  slug: string;
  /**
   * Checks a delivery the provider's way (signature, timestamp window, token) and reads it. Refusals
   * are thrown as AppError with the status the provider expects (401 for a bad signature, …): nothing
   * is queued then.
   */
  receive: (delivery: WebhookDelivery, integration: IntegrationOf<P>) => Promise<ReceivedDelivery>;
  outbound: (integration: IntegrationOf<P>) => ChannelOutbound;
  /**
   * How the integration takes deliveries, for GET /health, where its config can change that (WhatsApp's
   * opt-out of signatures); `signature_required` when absent: checked the provider's way, always.
   */
  deliveryState?: (integration: IntegrationOf<P>) => DeliveryState;
};

/** How an integration takes deliveries: checked, unchecked by its own opt-out, or all refused (and why). */
export type DeliveryState = {
  deliveries: 'signature_required' | 'unsigned_allowed' | 'refused';
  /** Why every delivery is refused. */
  error?: string;
};

/** Any one provider's adapter (ChannelAdapter of the union takes every provider's integration, which none does). */
export type AnyChannelAdapter = { [P in TIntegrationProvider]: ChannelAdapter<P> }[TIntegrationProvider];
