// What the Bot Framework posts to the webhook: an activity. Objects are loose (the Bot Framework and
// Teams add fields over time) and only the fields the engine reads are checked; lengths are capped so a
// hostile body cannot make the queue store without bound.
import { z } from 'zod';

const ID_MAX = 1024;
// Teams caps a message at about 28 KB; a text longer than this did not come from Teams.
export const ACTIVITY_TEXT_MAX = 40_000;
const ATTACHMENTS_MAX = 20;

const ZAccount = z.looseObject({
  id: z.string().min(1).max(ID_MAX),
  name: z.string().max(ID_MAX).optional(),
  aadObjectId: z.string().max(ID_MAX).optional(),
});

const ZAttachment = z.looseObject({
  contentType: z.string().max(ID_MAX),
  contentUrl: z.string().max(4096).optional(),
  name: z.string().max(ID_MAX).optional(),
  content: z.unknown().optional(),
});

const ZEntity = z.looseObject({
  type: z.string().max(ID_MAX),
  mentioned: z.looseObject({ id: z.string().max(ID_MAX) }).optional(),
  text: z.string().max(ID_MAX).optional(),
});

export const ZBotActivity = z.looseObject({
  type: z.string().min(1).max(100),
  id: z.string().min(1).max(ID_MAX).optional(),
  serviceUrl: z.string().min(1).max(2048),
  channelId: z.string().min(1).max(100),
  from: ZAccount.optional(),
  recipient: ZAccount.optional(),
  conversation: z.looseObject({ id: z.string().min(1).max(ID_MAX) }).optional(),
  text: z.string().max(ACTIVITY_TEXT_MAX).optional(),
  value: z.unknown().optional(),
  attachments: z.array(ZAttachment).max(ATTACHMENTS_MAX).optional(),
  entities: z.array(ZEntity).max(100).optional(),
});
export type TBotActivity = z.infer<typeof ZBotActivity>;
export type TBotAttachment = z.infer<typeof ZAttachment>;
