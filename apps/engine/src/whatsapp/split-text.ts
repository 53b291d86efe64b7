// WhatsApp text messages hold at most 4096 characters: longer replies go out in parts.
import { splitText as splitByLength } from '../channels/split-text.js';

export const WHATSAPP_TEXT_LIMIT = 4096;

export const splitText = (text: string, limit = WHATSAPP_TEXT_LIMIT): string[] => splitByLength(text, limit);
