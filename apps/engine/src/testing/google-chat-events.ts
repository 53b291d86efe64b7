// Google Chat interaction events as its HTTP endpoint receives them (the classic event format), for tests.
export type ChatEventOptions = {
  space?: string;
  thread?: string;
  user?: string;
  spaceType?: 'SPACE' | 'DIRECT_MESSAGE' | 'GROUP_CHAT';
};

const spaceOf = (options: ChatEventOptions) => ({
  name: options.space ?? 'spaces/AAAA',
  type: options.spaceType === 'DIRECT_MESSAGE' ? 'DM' : 'ROOM',
  spaceType: options.spaceType ?? 'SPACE',
});

const userOf = (options: ChatEventOptions) => ({
  name: options.user ?? 'users/111',
  displayName: 'Ada',
  type: 'HUMAN',
});

export function chatMessageEvent(
  text: string,
  options: ChatEventOptions & { messageName?: string; attachment?: unknown[] } = {},
): Record<string, unknown> {
  const space = spaceOf(options);
  const thread = options.thread ?? `${space.name}/threads/T1`;
  return {
    type: 'MESSAGE',
    eventTime: '2026-01-05T10:00:00.000000Z',
    space,
    user: userOf(options),
    message: {
      name: options.messageName ?? `${space.name}/messages/M1.M1`,
      sender: userOf(options),
      createTime: '2026-01-05T10:00:00.000000Z',
      text: `@Agent ${text}`,
      argumentText: ` ${text}`,
      thread: { name: thread },
      space,
      ...(options.attachment === undefined ? {} : { attachment: options.attachment }),
    },
  };
}

export function chatCardClickEvent(
  interruptId: string,
  decision: 'approve' | 'reject',
  options: ChatEventOptions & { cardMessageName?: string; eventTime?: string } = {},
): Record<string, unknown> {
  const space = spaceOf(options);
  const parameters = [
    { key: 'interruptId', value: interruptId },
    { key: 'decision', value: decision },
  ];
  return {
    type: 'CARD_CLICKED',
    eventTime: options.eventTime ?? '2026-01-05T10:01:00.000000Z',
    space,
    user: userOf(options),
    message: {
      name: options.cardMessageName ?? `${space.name}/messages/CARD.CARD`,
      sender: { name: 'users/app', type: 'BOT' },
      thread: { name: options.thread ?? `${space.name}/threads/T1` },
    },
    action: { actionMethodName: 'agentplane.approval', parameters },
    common: {
      invokedFunction: 'agentplane.approval',
      parameters: Object.fromEntries(parameters.map((p) => [p.key, p.value])),
    },
  };
}
