// Human in the loop on Teams, through a real engine: a tool call the policy wants approved pauses the
// run and becomes an Adaptive Card with Approve and Reject in the conversation; a press (a message
// activity carrying the button's data) by anyone but the asker is skipped, the asker's resumes the run.
import { randomUUID } from 'node:crypto';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApprovalChannel, startApprovalChannel } from '../../testing/approval-channel-agent.js';
import { buttonData, type FakeTeamsApi, startFakeTeamsApi } from '../../testing/fake-teams-api.js';
import { makeTeamsActivity } from '../../testing/teams-activities.js';

const ALICE = '29:alice';
const BOB = '29:bob';
const appId = randomUUID();

let api: FakeTeamsApi;
let channel: ApprovalChannel;

beforeAll(async () => {
  api = await startFakeTeamsApi();
  const appPassword = `password-${randomUUID()}`;
  api.registerBot(appId, appPassword);
  channel = await startApprovalChannel({
    integration: { provider: 'TEAMS', config: { appId, appPassword } },
    slug: 'teams',
    env: {
      TEAMS_OPENID_METADATA_URL: api.openIdMetadataUrl,
      TEAMS_LOGIN_BASE_URL: api.origin,
      TEAMS_SERVICE_URL_ALLOW: api.origin,
    },
  });
});

afterAll(async () => {
  await channel?.close();
  await api?.close();
});

/** Posts `activity` as the Bot Framework does, with its token for the bot. */
async function deliver(activity: Record<string, unknown>): Promise<Response> {
  const token = await api.signer.token({ appId, serviceUrl: api.serviceUrl });
  return fetch(channel.webhook, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(activity),
  });
}

describe('a tool call that needs approval on Teams', () => {
  it('asks with a card; only the person who asked resumes the run with a press', async () => {
    const conversationId = `19:${randomUUID()}@thread.tacv2;messageid=${Date.now()}`;
    const inConversation = { serviceUrl: api.serviceUrl, appId, conversationId };
    const deliveredHere = () => api.delivered.filter((call) => call.conversationId === conversationId);
    channel.scriptSumThenAnswer([2, 3], ['The sum is ', '**5**']);
    const question = makeTeamsActivity({ ...inConversation, from: ALICE, text: 'add 2 and 3' });
    expect((await deliver(question)).status).toBe(200);
    const cardCall = () => deliveredHere().find((call) => call.body.attachments !== undefined);
    await waitUntil(() => cardCall() !== undefined, { what: 'the approval card to be posted' });
    expect(cardCall()).toMatchObject({ method: 'POST', activityId: question.id });
    const approve = buttonData(cardCall(), 'Approve');
    expect(approve).toMatchObject({ approved: true });
    expect(buttonData(cardCall(), 'Reject')).toMatchObject({ approved: false });

    // A press is a message activity whose value is the button's data, signed by the Bot Framework.
    const pressBy = (from: string) => deliver(makeTeamsActivity({ ...inConversation, from, value: approve }));
    await channel.expectOnlyAskerResumes(pressBy, { asker: ALICE, other: BOB });
    expect(deliveredHere().at(-1)?.body.text).toBe('The sum is **5**');
  });
});
