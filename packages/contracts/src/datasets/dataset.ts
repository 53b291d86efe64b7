// Datasets (issue 36): a workspace's test cases for its agents. An item is a conversation to send (AG-UI
// messages, as a run's input takes them) and, optionally, what a good answer says or calls. Every change
// to a dataset's items makes a new version, and a version reads the same forever: experiments pin one.
import { z } from 'zod';
import { DESCRIPTION_MAX_LENGTH, IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { ZPaginationQuery } from '../common/pagination.js';
import { ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';

/** One item as JSON (input, expected and metadata together), in UTF-8 bytes. */
export const DATASET_ITEM_MAX_BYTES = 64 * 1024;
/** Messages in one item's input. */
export const DATASET_ITEM_MAX_MESSAGES = 200;
/** Tool calls one item expects, and tool calls in one assistant message of its input. */
export const DATASET_TOOL_CALLS_MAX_ITEMS = 32;
/** Items one add request carries (a JSON body is at most 1 MiB besides). */
export const DATASET_ITEMS_PER_REQUEST_MAX = 1000;
/** The media type of an import's body and an export's answer: one JSON item per line. */
export const JSONL_MEDIA_TYPE = 'application/x-ndjson';
/** Every media type taken as JSON Lines: application/x-ndjson and the newer names of the same thing. */
export const JSONL_MEDIA_TYPES = [JSONL_MEDIA_TYPE, 'application/jsonl', 'application/jsonlines'];

// Every string is bounded by the item's size; this bound only keeps one field from being the whole of it.
const ZText = z.string().max(DATASET_ITEM_MAX_BYTES);
const ZMessageId = z.string().min(1).max(IDENTIFIER_MAX_LENGTH);
const ZToolName = z.string().min(1).max(IDENTIFIER_MAX_LENGTH);

const ZAguiToolCall = z.strictObject({
  id: ZMessageId,
  type: z.literal('function'),
  function: z.strictObject({ name: ZToolName, arguments: ZText.meta({ description: 'The arguments, as JSON text' }) }),
});

const textMessage = <R extends 'system' | 'developer' | 'user'>(role: R) =>
  z.strictObject({ id: ZMessageId.optional(), role: z.literal(role), content: ZText });

/** An AG-UI message: what a run's `messages` holds and what the engine keeps in a thread. */
export const ZDatasetMessage = z
  .discriminatedUnion('role', [
    textMessage('system'),
    textMessage('developer'),
    textMessage('user'),
    z.strictObject({
      id: ZMessageId.optional(),
      role: z.literal('assistant'),
      content: ZText.optional(),
      toolCalls: z.array(ZAguiToolCall).max(DATASET_TOOL_CALLS_MAX_ITEMS).optional(),
    }),
    z.strictObject({ id: ZMessageId.optional(), role: z.literal('tool'), content: ZText, toolCallId: ZMessageId }),
  ])
  .meta({ id: 'DatasetMessage', description: 'An AG-UI message (role and content; toolCalls, toolCallId)' });
export type TDatasetMessage = z.infer<typeof ZDatasetMessage>;

export const ZDatasetExpected = z
  .strictObject({
    reply: ZText.optional().meta({ description: 'The reply a good answer gives (how it is compared is the scorer’s)' }),
    tool_calls: z
      .array(
        z.strictObject({
          name: ZToolName,
          arguments: z
            .record(z.string(), z.unknown())
            .optional()
            .meta({ description: 'The arguments the call should carry' }),
        }),
      )
      .max(DATASET_TOOL_CALLS_MAX_ITEMS)
      .optional()
      .meta({ description: 'The tools a good answer calls' }),
  })
  .meta({ id: 'DatasetExpected' });
export type TDatasetExpected = z.infer<typeof ZDatasetExpected>;

function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** An item as added, replaced, imported (one JSONL line) and exported. */
export const ZDatasetItemInput = z
  .strictObject({
    input: z
      .array(ZDatasetMessage)
      .min(1)
      .max(DATASET_ITEM_MAX_MESSAGES)
      .meta({ description: 'The conversation sent to the agent, oldest message first' }),
    expected: ZDatasetExpected.nullable().default(null),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .default(null)
      .meta({ description: 'Anything the team wants to keep with the item (tags, a source thread…)' }),
  })
  .superRefine((item, ctx) => {
    const bytes = jsonBytes(item);
    if (bytes > DATASET_ITEM_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `The item is ${bytes} bytes as JSON; at most ${DATASET_ITEM_MAX_BYTES} are accepted`,
      });
    }
  })
  .meta({ id: 'DatasetItemInput', description: `An item; at most ${DATASET_ITEM_MAX_BYTES} bytes as JSON` });
export type TDatasetItemInput = z.infer<typeof ZDatasetItemInput>;

export const ZDatasetItem = z
  .strictObject({
    id: ZUuid.meta({ description: "The item's id, the same in every version it is part of, edits included" }),
    version: z.number().int().min(1).meta({ description: 'The dataset version that gave the item this content' }),
    input: z.array(ZDatasetMessage),
    expected: ZDatasetExpected.nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'DatasetItem' });
export type TDatasetItem = z.infer<typeof ZDatasetItem>;

export const ZDatasetInput = z
  .strictObject({
    name: ZResourceName,
    description: z.string().trim().max(DESCRIPTION_MAX_LENGTH).nullable().default(null),
  })
  .meta({ id: 'DatasetInput', description: 'A dataset as created or renamed (PATCH); its items are changed apart' });
export type TDatasetInput = z.infer<typeof ZDatasetInput>;

export const ZDataset = z
  .strictObject({
    id: ZUuid,
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int().min(1).meta({ description: 'The current version: 1 at create, one more per change' }),
    item_count: z.number().int().min(0).meta({ description: 'Items in the current version' }),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'Dataset' });
export type TDataset = z.infer<typeof ZDataset>;

export const DATASET_CHANGES = [
  'created',
  'items_added',
  'item_replaced',
  'item_deleted',
  'imported',
  'replaced_all',
] as const;
export type TDatasetChange = (typeof DATASET_CHANGES)[number];

export const ZDatasetVersion = z
  .strictObject({
    version: z.number().int().min(1),
    change: z.enum(DATASET_CHANGES).meta({
      description:
        'What made it: created, items_added, item_replaced, item_deleted, imported (appended) or replaced_all',
    }),
    item_count: z.number().int().min(0),
    created_at: ZIsoDateTime,
  })
  .meta({ id: 'DatasetVersion', description: 'One version of a dataset; it reads the same for as long as it is kept' });
export type TDatasetVersion = z.infer<typeof ZDatasetVersion>;

export const ZDatasetItemsAdd = z
  .strictObject({ items: z.array(ZDatasetItemInput).min(1).max(DATASET_ITEMS_PER_REQUEST_MAX) })
  .meta({ id: 'DatasetItemsAdd' });

export const ZDatasetItemsAdded = z
  .strictObject({ version: ZDatasetVersion, items: z.array(ZDatasetItem) })
  .meta({ id: 'DatasetItemsAdded', description: 'The version the items made, and the items with their ids' });

export const ZDatasetItemChanged = z
  .strictObject({ version: ZDatasetVersion, item: ZDatasetItem })
  .meta({ id: 'DatasetItemChanged' });

/** A version is a PostgreSQL integer. */
const DATASET_VERSION_MAX = 2_147_483_647;

const ZVersionQueryParam = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, { error: 'Must be a version number (1 or more, in digits)' })
  .transform(Number)
  .pipe(z.number().max(DATASET_VERSION_MAX))
  .optional()
  .meta({ description: 'The version to read; the current one when absent' });

export const ZDatasetItemsQuery = ZPaginationQuery.extend({ version: ZVersionQueryParam });
export type TDatasetItemsQuery = z.infer<typeof ZDatasetItemsQuery>;
export const ZDatasetExportQuery = z.object({ version: ZVersionQueryParam });

export const ZDatasetImportQuery = z.object({
  mode: z.enum(['append', 'replace']).default('append').meta({
    description: "append: the lines join the dataset's items; replace: they become its only items",
  }),
});
export type TDatasetImportMode = z.infer<typeof ZDatasetImportQuery>['mode'];

export const ZDatasetItemParams = z.strictObject({ id: ZUuid, itemId: ZUuid });

/** One JSONL line per item, each a DatasetItemInput; documented here, parsed line by line by the handler. */
export const ZDatasetJsonl = z.string().meta({
  id: 'DatasetJsonl',
  description: 'JSON Lines: one DatasetItemInput per line; blank lines are skipped',
});
