// The prompt_injection rule's detector, ours: a heuristic over the phrase families injected text uses
// (telling the model to drop its instructions, to take a new identity, to show its prompt, or faking
// the delimiters of a system prompt). Case-insensitive; words may be separated by any run of up to
// five whitespace characters; every repetition is bounded, so a match has a longest length.
import { regexMatchBounds } from '@agentplane/contracts';
import { regExpDetector, type TextDetector } from './text-detector.js';

const GAP = String.raw`\s{1,5}`;
const words = (...parts: string[]) => parts.join(GAP);
/** Alternatives; a space inside one stands for a whitespace gap. */
const either = (...options: string[]) => `(?:${options.map((option) => option.replaceAll(' ', GAP)).join('|')})`;

const EARLIER = either(
  'previous',
  'prior',
  'above',
  'earlier',
  'preceding',
  'foregoing',
  'original',
  'initial',
  'system',
);
const ORDERS = either(
  'instructions?',
  'directions?',
  'prompts?',
  'rules',
  'guidelines',
  'directives?',
  'commands?',
  'messages?',
  'context',
);
const FILLER = `(?:${GAP}${either('all', 'any', 'the', 'of', 'your', 'these', 'those', 'my', 'every', 'its')}){0,3}`;

const FAMILIES = [
  // "Ignore all previous instructions", "disregard the above", "forget your prior rules".
  `\\b${either('ignore', 'disregard', 'forget', 'skip', 'override', 'bypass', 'drop')}${FILLER}${GAP}${EARLIER}(?:${GAP}${ORDERS})?\\b`,
  `\\b${either('ignore', 'disregard', 'forget', 'override', 'bypass')}${GAP}${either('your', 'the', 'all')}${GAP}${either('instructions', 'rules', 'guidelines', 'programming', 'system prompt')}\\b`,
  `\\b${words('forget', 'everything')}${GAP}${either('above', 'before', 'you', 'that')}\\b`,
  // A new identity: "you are now DAN", "from now on you are", "pretend you are an AI without rules".
  `\\b${words('you', 'are', 'now')}${GAP}(?:${either('an?', 'the', 'my', 'in')}${GAP})?${either('DAN', 'unrestricted', 'unfiltered', 'uncensored', 'jailbroken', 'evil', 'free', 'no longer', 'developer mode', 'a different', 'an unrestricted', 'not bound', 'released')}`,
  `\\b${words('from', 'now', 'on')},?${GAP}${words('you')}${GAP}${either('are', 'will', 'must', 'shall', 'have no')}${GAP}${either('no longer', 'ignore', 'not', 'an?', 'free', 'unrestricted', 'DAN')}`,
  `\\b${either('pretend', 'imagine', 'act as if', 'roleplay that', 'role-play that', 'suppose')}${GAP}(?:that${GAP})?${words('you')}${GAP}${either('are', 'have', 'were')}${GAP}${either('no longer', 'not', 'free', 'without', 'an? (?:ai|assistant|model) (?:without|with no)', 'unrestricted', 'DAN', 'jailbroken')}`,
  `\\b${words('do', 'anything', 'now')}\\b`,
  `\\b${either('developer', 'jailbreak', 'god', 'DAN')}${GAP}mode${GAP}${either('enabled', 'activated', 'on')}\\b`,
  // New orders: "new instructions:", "updated system prompt:".
  `\\b${either('new', 'updated', 'revised', 'real', 'actual', 'true')}${GAP}${either('instructions', 'system prompt', 'rules', 'directives')}\\s{0,5}:`,
  // Asking for the prompt: "reveal the system prompt", "print your instructions".
  `\\b${either('reveal', 'show', 'print', 'repeat', 'output', 'display', 'tell me', 'leak', 'disclose', 'dump', 'give me', 'write out')}${GAP}(?:${either('me', 'us')}${GAP})?${either('your', 'the')}${GAP}(?:${either('full', 'entire', 'original', 'hidden', 'initial', 'secret', 'exact')}${GAP})?${either('system prompt', 'system message', 'instructions', 'prompt', 'initial prompt', 'rules')}\\b`,
  `\\bsystem${GAP}prompt\\s{0,5}:`,
  // Fake delimiters of a prompt's parts.
  `\\b${either('begin', 'start', 'end')}${GAP}(?:of${GAP})?${either('system', 'developer')}${GAP}${either('prompt', 'message', 'instructions')}\\b`,
  `<\\s{0,5}/?\\s{0,5}${either('system', 'instructions?', 'im_start', 'im_end', 'developer')}\\s{0,5}>`,
  String.raw`<\|${either('im_start', 'im_end', 'system', 'endoftext')}\|>`,
  String.raw`\[/?${either('INST', 'SYS', 'SYSTEM')}\]|<<\s{0,5}/?SYS\s{0,5}>>`,
  `#{2,4}\\s{0,5}${either('system', 'instructions?', 'new instructions')}\\s{0,5}:`,
];

const INJECTION_SOURCE = FAMILIES.map((family) => `(?:${family})`).join('|');

/** The longest match of the detector, in UTF-16 code units. */
export const INJECTION_MAX_CHARS = regexMatchBounds(INJECTION_SOURCE).max;

export function injectionDetector(): TextDetector {
  return regExpDetector(INJECTION_SOURCE, 'i', 'injection', INJECTION_MAX_CHARS + 1);
}
