// Discord's side of an interaction, for tests: an application's Ed25519 key pair, interactions as Discord
// builds them, and the signature Discord puts on each delivery (X-Signature-Ed25519 over the timestamp
// and the body), made by node's crypto, the Ed25519 that discord-interactions checks with.
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { DiscordMessageBody, FakeDiscordApi } from './fake-discord-api.js';

export type DiscordApplication = {
  applicationId: string;
  /** Hex, as the developer portal shows it: the integration's publicKey. */
  publicKey: string;
  privateKey: KeyObject;
};

let snowflake = 1_300_000_000_000_000_000n;
/** A fresh id in Discord's format (a decimal snowflake). */
export const nextSnowflake = () => String(++snowflake);

export function makeDiscordApplication(): DiscordApplication {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    applicationId: nextSnowflake(),
    publicKey: Buffer.from(String(jwk.x), 'base64url').toString('hex'),
    privateKey,
  };
}

export type SignedDelivery = { body: string; headers: Record<string, string> };

/** Signs `body` as Discord does, at `timestampSeconds` (now by default). */
export function signInteraction(
  application: DiscordApplication,
  body: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): SignedDelivery {
  const timestamp = String(timestampSeconds);
  const signature = sign(null, Buffer.from(timestamp + body, 'utf8'), application.privateKey).toString('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-signature-ed25519': signature,
      'x-signature-timestamp': timestamp,
    },
  };
}

type Actor = { userId: string; channelId: string; guildId?: string };

const base = (application: DiscordApplication, type: number, actor: Actor) => ({
  id: nextSnowflake(),
  application_id: application.applicationId,
  type,
  token: `itoken-${randomBytes(24).toString('base64url')}`,
  version: 1,
  channel_id: actor.channelId,
  ...(actor.guildId === undefined
    ? { user: { id: actor.userId, username: 'someone' } }
    : { guild_id: actor.guildId, member: { user: { id: actor.userId, username: 'someone' }, roles: [] } }),
});

export const pingInteraction = (application: DiscordApplication) => ({
  id: nextSnowflake(),
  application_id: application.applicationId,
  type: 1,
  token: `itoken-${randomBytes(24).toString('base64url')}`,
  version: 1,
});

/** `/ask prompt:<prompt>`. */
export const askCommand = (application: DiscordApplication, actor: Actor, prompt: string) => ({
  ...base(application, 2, actor),
  data: { id: nextSnowflake(), name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: prompt }] },
});

/** A press of the button `customId` on the app's message `messageId`. */
export const buttonPress = (
  application: DiscordApplication,
  actor: Actor,
  message: { id: string; content: string },
  customId: string,
) => ({
  ...base(application, 3, actor),
  message: { id: message.id, content: message.content, components: [] },
  data: { custom_id: customId, component_type: 2 },
});

type Delivered = { status: number; answer: { type: number; data?: DiscordMessageBody } | undefined };

/**
 * Does what Discord does with an interaction: signs it, posts it to the webhook `url`, and hands the
 * engine's answer to the fake API (so a deferred answer becomes the "thinking…" original there).
 */
export async function deliverInteraction(
  url: string,
  application: DiscordApplication,
  interaction: { token: string; message?: { id: string } },
  discord: FakeDiscordApi,
  timestampSeconds?: number,
): Promise<Delivered> {
  const signed = signInteraction(application, JSON.stringify(interaction), timestampSeconds);
  const response = await fetch(url, { method: 'POST', headers: signed.headers, body: signed.body });
  const answer = response.ok ? ((await response.json()) as Delivered['answer']) : undefined;
  if (!response.ok) await response.body?.cancel();
  if (answer !== undefined) discord.answered(interaction.token, answer, interaction.message?.id);
  return { status: response.status, answer };
}
