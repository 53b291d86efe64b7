// Bot Framework activities as Teams posts them, for tests: a user's message (optionally @mentioning the
// bot, with files), or with `value` the press of a card's button (whose data Teams sends as it is).
export type TeamsActivityOptions = {
  serviceUrl: string;
  appId: string;
  id?: string;
  conversationId?: string;
  from?: string;
  text?: string;
  value?: unknown;
  attachments?: unknown[];
  entities?: unknown[];
  type?: string;
};

let counter = 0;

export function makeTeamsActivity(options: TeamsActivityOptions): Record<string, unknown> {
  counter++;
  const { serviceUrl, appId, type = 'message' } = options;
  return {
    type,
    id: options.id ?? `${Date.now()}${counter}`,
    timestamp: new Date().toISOString(),
    serviceUrl,
    channelId: 'msteams',
    from: { id: options.from ?? '29:user-one', name: 'User One', aadObjectId: 'aad-user-one' },
    conversation: { id: options.conversationId ?? 'a:personal-chat-1', conversationType: 'personal' },
    recipient: { id: `28:${appId}`, name: 'Agent' },
    ...(options.text === undefined ? {} : { text: options.text, textFormat: 'plain' }),
    ...(options.value === undefined ? {} : { value: options.value }),
    ...(options.attachments === undefined ? {} : { attachments: options.attachments }),
    ...(options.entities === undefined ? {} : { entities: options.entities }),
  };
}
