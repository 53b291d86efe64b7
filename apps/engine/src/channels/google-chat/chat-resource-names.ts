// The shapes of the Chat API's resource names. Names read from an event become paths of API calls
// (POST /v1/{space}/messages, PATCH /v1/{message}), so each is checked against its documented shape:
// a name that passes holds no `/..`, `?` or `#` that could point a call elsewhere.
import { z } from 'zod';

const RESOURCE_ID = '[A-Za-z0-9_-]{1,128}';
const SPACE_NAME = new RegExp(`^spaces/${RESOURCE_ID}$`);
const MESSAGE_NAME = new RegExp(`^spaces/${RESOURCE_ID}/messages/[A-Za-z0-9_.-]{1,128}$`);

export const ZSpaceName = z.string().regex(SPACE_NAME);
export const ZThreadName = z.string().regex(new RegExp(`^spaces/${RESOURCE_ID}/threads/[A-Za-z0-9_.-]{1,128}$`));
export const ZMessageName = z.string().regex(MESSAGE_NAME);
export const ZUserName = z.string().regex(/^users\/[A-Za-z0-9_.@-]{1,128}$/);

export const isSpaceName = (name: string) => SPACE_NAME.test(name);
export const isMessageName = (name: string) => MESSAGE_NAME.test(name) && !name.includes('..');
