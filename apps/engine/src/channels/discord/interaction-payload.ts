// The parts of a Discord interaction the adapter reads; everything else Discord sends is ignored.
import { z } from 'zod';

const ZSnowflake = z.string().regex(/^\d{1,25}$/);
const ZUser = z.object({ id: ZSnowflake, bot: z.boolean().optional() });

const ZAttachment = z.object({
  id: ZSnowflake,
  filename: z.string().max(1024),
  url: z.string().max(4096),
  content_type: z.string().max(255).optional(),
});

const ZOption = z.object({ name: z.string().max(100), type: z.number().int(), value: z.unknown().optional() });

export const ZInteraction = z.object({
  id: ZSnowflake,
  application_id: ZSnowflake,
  type: z.number().int(),
  token: z.string().min(1).max(2048).optional(),
  channel_id: ZSnowflake.optional(),
  channel: z.object({ id: ZSnowflake }).optional(),
  // A guild's interactions name the member, a direct message's the user.
  member: z.object({ user: ZUser }).optional(),
  user: ZUser.optional(),
  data: z
    .object({
      name: z.string().max(100).optional(),
      /** The command's type: 1 slash command, 3 a message's context menu. */
      type: z.number().int().optional(),
      options: z.array(ZOption).max(25).optional(),
      target_id: ZSnowflake.optional(),
      custom_id: z.string().max(100).optional(),
      resolved: z
        .object({
          attachments: z.record(ZSnowflake, ZAttachment).optional(),
          messages: z
            .record(ZSnowflake, z.object({ content: z.string(), attachments: z.array(ZAttachment).max(10).optional() }))
            .optional(),
        })
        .optional(),
    })
    .optional(),
  // The message a pressed component is on.
  message: z.object({ id: ZSnowflake, content: z.string() }).optional(),
});
export type TInteraction = z.infer<typeof ZInteraction>;
export type TInteractionAttachment = z.infer<typeof ZAttachment>;

/** Discord's application command option types the adapter reads. */
export const OPTION_TYPE = { string: 3, attachment: 11 } as const;
/** Discord's application command types. */
export const COMMAND_TYPE = { chatInput: 1, message: 3 } as const;
