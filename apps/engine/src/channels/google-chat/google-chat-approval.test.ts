// Human in the loop on Google Chat, through a real engine: a tool call the policy wants approved pauses
// the run and becomes a card with Approve and Reject in the thread; a press (a CARD_CLICKED event) by
// anyone but the asker is skipped, the asker's resumes the run and the answer arrives in the thread.
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApprovalChannel, startApprovalChannel } from '../../testing/approval-channel-agent.js';
import {
  type ChatApiCall,
  type FakeGoogleChatApi,
  startFakeGoogleChatApi,
} from '../../testing/fake-google-chat-api.js';
import { chatCardClickEvent, chatMessageEvent } from '../../testing/google-chat-events.js';
import { APPROVAL_FUNCTION, INTERRUPT_ID_PARAMETER } from './approval-card.js';
import { PROJECT_NUMBER } from './google-chat-test-fixtures.js';

const ALICE = 'users/1001';
const BOB = 'users/1002';

let google: FakeGoogleChatApi;
let channel: ApprovalChannel;

beforeAll(async () => {
  google = await startFakeGoogleChatApi();
  const account = await google.addServiceAccount();
  channel = await startApprovalChannel({
    integration: {
      provider: 'GOOGLE_CHAT',
      config: {
        audience: PROJECT_NUMBER,
        serviceAccountEmail: account.email,
        serviceAccountPrivateKey: account.privateKey,
      },
    },
    slug: 'google-chat',
    env: google.env,
  });
});

afterAll(async () => {
  await channel?.close();
  await google?.close();
});

/** Posts `event` as Google Chat does, with its bearer token for the project. */
const deliver = async (event: unknown) =>
  fetch(channel.webhook, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: await google.signDelivery({ audience: PROJECT_NUMBER }),
    },
    body: JSON.stringify(event),
  });

type CardButton = {
  text: string;
  onClick: { action: { function: string; parameters: { key: string; value: string }[] } };
};
type Card = { card: { sections: { widgets: { buttonList?: { buttons: CardButton[] } }[] }[] } };
const buttonsOf = (call: ChatApiCall | undefined): CardButton[] =>
  ((call?.body.cardsV2 ?? []) as Card[])
    .flatMap(({ card }) => card.sections.flatMap((section) => section.widgets))
    .flatMap((widget) => widget.buttonList?.buttons ?? []);

describe('a tool call that needs approval on Google Chat', () => {
  it('asks in the thread with a card; only the person who asked resumes the run with a press', async () => {
    const space = 'spaces/APPROVAL1';
    const thread = `${space}/threads/T7`;
    const inThread = (call: ChatApiCall) => call.path === `/v1/${space}/messages` && call.body.thread?.name === thread;
    channel.scriptSumThenAnswer([2, 3], ['The sum is ', '**5**']);
    const question = chatMessageEvent('add 2 and 3', {
      space,
      thread,
      user: ALICE,
      messageName: `${space}/messages/Q.Q`,
    });
    expect((await deliver(question)).status).toBe(200);
    const cardCall = () => google.delivered.find((call) => inThread(call) && call.body.cardsV2 !== undefined);
    await waitUntil(() => cardCall() !== undefined, { what: 'the approval card to be posted' });
    expect(cardCall()?.body.text).toContain(`<${ALICE}>`);
    const [approve, reject] = buttonsOf(cardCall());
    expect([approve?.text, reject?.text]).toEqual(['Approve', 'Reject']);
    expect(approve?.onClick.action.function).toBe(APPROVAL_FUNCTION);
    const interruptId = String(
      approve?.onClick.action.parameters.find((parameter) => parameter.key === INTERRUPT_ID_PARAMETER)?.value,
    );

    // A press is a CARD_CLICKED event naming the function and its parameters, and who clicked.
    const pressBy = (user: string) =>
      deliver(
        chatCardClickEvent(interruptId, 'approve', {
          space,
          thread,
          user,
          cardMessageName: `${space}/messages/CARD.CARD`,
          eventTime: new Date().toISOString(),
        }),
      );
    await channel.expectOnlyAskerResumes(pressBy, { asker: ALICE, other: BOB });
    // The answer is posted in the thread after the card (and edited as it streamed).
    const inSpace = google.delivered.filter((call) => call.path.startsWith(`/v1/${space}/`));
    const answer = inSpace.slice(inSpace.indexOf(cardCall() as ChatApiCall) + 1);
    const posted = answer.filter((call) => call.method === 'POST');
    expect(posted).toHaveLength(1);
    expect(posted.every(inThread)).toBe(true);
    expect(answer.at(-1)?.body.text).toBe('The sum is *5*');
  });
});
