// What every message the app sends shares: Discord's length limit, and no pings. The agent's text may
// echo anything a user wrote, so it must not be able to notify @everyone, a role or a user.
export const DISCORD_MESSAGE_MAX_LENGTH = 2000;

export const NO_MENTIONS = { parse: [] } as const;
