// The ids in an AG-UI run input. AG-UI leaves them free-form strings; an engine puts them in URLs,
// headers, thread keys, logs and NOTIFY payloads, so they are bounded and hold no control character
// and no lone surrogate (which encodeURIComponent and PostgreSQL both refuse).
import { z } from 'zod';
import { AGUI_ID_MAX_LENGTH } from '../common/limits.js';

// With the u flag a paired surrogate is one code point, so only a lone half is \p{Cs}.
const PRINTABLE = /^[^\p{Cc}\p{Cs}]*$/u;

export const ZAguiId = z
  .string()
  .min(1)
  .max(AGUI_ID_MAX_LENGTH)
  .regex(PRINTABLE, { error: 'Must not contain control characters or lone UTF-16 surrogates' });
export type TAguiId = z.infer<typeof ZAguiId>;

const ZToolCallIds = z.looseObject({ id: ZAguiId });

/** Only the ids of a run input: the rest of its shape is AG-UI's RunAgentInputSchema's to check. */
export const ZRunInputIds = z.looseObject({
  threadId: ZAguiId,
  runId: ZAguiId,
  parentRunId: ZAguiId.optional(),
  messages: z.array(
    z.looseObject({
      id: ZAguiId,
      toolCallId: ZAguiId.optional(),
      toolCalls: z.array(ZToolCallIds).optional(),
    }),
  ),
});
