// The parts of Slack's requests the engine reads: the Events API envelope (JSON) and an interactivity
// payload (the `payload` field of a form). Slack adds fields over time, so unknown keys are dropped,
// never refused; a field we read that is missing or of the wrong type is a 400.
import { z } from 'zod';

// Slack's ids and timestamps are short ASCII; the caps keep a hostile body from naming huge keys.
const ZId = z.string().min(1).max(255);
const ZTs = z
  .string()
  .regex(/^\d{1,20}\.\d{1,10}$/, { error: 'Must be a Slack timestamp such as "1712345678.000100"' });

export const ZSlackFile = z.object({
  id: ZId,
  name: z.string().max(1000).optional(),
  mimetype: z.string().max(255).optional(),
});

/** A `message` or `app_mention` event; any other event type is acknowledged and ignored. */
export const ZSlackMessageEvent = z.object({
  type: z.enum(['message', 'app_mention']),
  channel: ZId,
  channel_type: z.string().max(64).optional(),
  user: ZId.optional(),
  bot_id: z.string().max(255).optional(),
  subtype: z.string().max(64).optional(),
  text: z.string().optional(),
  ts: ZTs,
  thread_ts: ZTs.optional(),
  files: z.array(ZSlackFile).max(100).optional(),
});
export type TSlackMessageEvent = z.infer<typeof ZSlackMessageEvent>;

export const ZSlackEventCallback = z.object({
  type: z.literal('event_callback'),
  api_app_id: ZId,
  event_id: ZId,
  event: z.object({ type: z.string().max(255) }).loose(),
});

export const ZSlackUrlVerification = z.object({
  type: z.literal('url_verification'),
  challenge: z.string().min(1).max(1000),
});

export const ZSlackBlockActions = z.object({
  type: z.literal('block_actions'),
  api_app_id: ZId,
  trigger_id: ZId,
  user: z.object({ id: ZId }),
  container: z.object({ channel_id: ZId.optional(), message_ts: ZTs.optional(), thread_ts: ZTs.optional() }),
  channel: z.object({ id: ZId }).optional(),
  message: z.object({ ts: ZTs, thread_ts: ZTs.optional() }).optional(),
  actions: z
    .array(z.object({ action_id: z.string().max(255), value: z.string().max(2000).optional() }))
    .min(1)
    .max(25),
});
export type TSlackBlockActions = z.infer<typeof ZSlackBlockActions>;

/** Just enough of any request to tell what it is and which app it is for. */
export const ZSlackEnvelope = z.object({ type: z.string().max(255), api_app_id: ZId.optional() });
