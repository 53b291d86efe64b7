// A reply that streams where the provider edits messages: the first text posts a message, later text
// edits it, no more often than the provider's edit interval. The posted message's id is saved under
// the claim's lease before anything else is sent, so a worker that takes the message over after a
// crash edits that message instead of posting a second one. Streaming is best effort: a failed edit is
// logged and left to the final delivery (process-claim.ts), which edits the same message with the
// whole reply and is retried as any send is. A provider that says to slow down (a 429, a 5xx: any
// retryable failure) is not called again by the stream, and its Retry-After is handed to the final
// delivery, which must not call it before then either.
import type { Logger } from '@agentplane/server-kit';
import { ChannelApiError, type ChannelOutbound, type ReplyAddress } from './channel-adapter.js';
import type { ReplyState } from './inbound-queue.js';

/** What a stream left on the provider once settled. */
export type SettledStream = {
  /** The text the posted message shows now, as sent (formatted); undefined when nothing was shown. */
  shown: string | undefined;
  /**
   * The provider's refusal that stopped the stream, while its Retry-After has not passed: the final
   * delivery waits for it rather than calling the provider sooner.
   */
  wait: ChannelApiError | undefined;
};

export type ReplyStream = {
  /** The reply's text so far (markdown); sent when the interval allows, else with a later update. */
  update: (text: string) => void;
  /** Waits for the call in flight and sends nothing more; throws what saving the state threw (a lost lease). */
  settle: () => Promise<SettledStream>;
};

export type ReplyStreamOptions = {
  outbound: ChannelOutbound & Required<Pick<ChannelOutbound, 'edit'>>;
  address: ReplyAddress;
  /** What an earlier attempt posted (its reply_state): edited, never posted again. */
  state: ReplyState | null;
  /** Saves the posted ids under the lease; throws when the lease is lost. */
  save: (state: ReplyState) => Promise<void>;
  signal: AbortSignal;
  log: Logger;
};

/** The text as it can be shown while streaming: formatted, cut to the provider's length, never empty. */
function preview(outbound: ChannelOutbound, text: string): string | undefined {
  const formatted = outbound.format(text).trim();
  if (formatted === '') return undefined;
  return formatted.length <= outbound.maxLength ? formatted : `${formatted.slice(0, outbound.maxLength - 1)}…`;
}

export function startReplyStream({ outbound, address, state, save, signal, log }: ReplyStreamOptions): ReplyStream {
  const interval = outbound.editIntervalMs ?? 0;
  let posted = state?.posted[0];
  let latest: string | undefined;
  let shown: string | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  let failure: unknown;
  // A retryable refusal, and when it came: streaming is over, the final delivery waits out its Retry-After.
  let refusal: { error: ChannelApiError; at: number } | undefined;

  const send = async (text: string) => {
    if (posted === undefined) {
      const id = await outbound.post(address, text, signal);
      posted = id;
      try {
        await save({ ...state, posted: [id] });
      } catch (error) {
        // The id could not be saved under the lease: this worker's reply is over.
        failure = error;
        throw error;
      }
    } else {
      await outbound.edit(address, posted, text, signal);
    }
    shown = text;
  };

  const flush = () => {
    timer = undefined;
    if (settled || inFlight !== undefined || failure !== undefined || refusal !== undefined) return;
    const text = latest === undefined ? undefined : preview(outbound, latest);
    if (text === undefined || text === shown) return;
    lastSentAt = Date.now();
    inFlight = send(text)
      .catch((error: unknown) => {
        // A failed post or edit is not retried mid-stream: the final delivery sends the whole text.
        if (failure !== undefined || signal.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof ChannelApiError && error.retryable) {
          refusal = { error, at: Date.now() };
          log.warn(
            { err_message: message, retry_after_ms: error.retryAfterMs },
            'streaming stopped: the provider refused an edit',
          );
        } else {
          log.warn({ err_message: message }, 'a streamed edit failed');
        }
      })
      .finally(() => {
        inFlight = undefined;
        schedule();
      });
  };

  const schedule = () => {
    if (settled || timer !== undefined || inFlight !== undefined || refusal !== undefined) return;
    const wait = Math.max(lastSentAt + interval - Date.now(), 0);
    timer = setTimeout(flush, wait);
  };

  return {
    update: (text) => {
      latest = text;
      schedule();
    },
    settle: async () => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
      if (failure !== undefined) throw failure;
      const waiting = refusal !== undefined && Date.now() - refusal.at < (refusal.error.retryAfterMs ?? 0);
      return { shown, wait: waiting ? refusal?.error : undefined };
    },
  };
}
