// An A2A message as the input of a run: its text parts are the user's message, and a data part
// {"resume": [...]} (AG-UI ResumeEntry items) answers the interrupts a task is waiting on. The result
// goes through the run input's own checks (run-input.ts), like any AG-UI client's.
import { randomUUID } from 'node:crypto';
import { type Message, Role } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { RunAgentInput } from '@ag-ui/core';
import { checkRunInput } from '../runs/run-input.js';

/** Reads the message's parts: text, and the resume a data part carries. */
function readParts(message: Message): { text: string; resume: unknown } {
  const texts: string[] = [];
  let resume: unknown;
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data' && isResume(content.value)) resume = content.value.resume;
    else if (content?.$case === 'data') texts.push(JSON.stringify(content.value));
    else throw new ContentTypeNotSupportedError('The agent reads text and data parts only, no files.');
  }
  return { text: texts.join('\n'), resume };
}

const isResume = (value: unknown): value is { resume: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'resume' in value;

/** The run of `message` on the thread `threadId`, checked as /agent/run checks its body. */
export function runInputOf(message: Message, threadId: string, runId: string): RunAgentInput {
  if (message.role !== Role.ROLE_USER) throw new RequestMalformedError('The message must have the role ROLE_USER.');
  const { text, resume } = readParts(message);
  if (text === '' && resume === undefined) {
    throw new RequestMalformedError('The message has no text, and no data part {"resume": [...]}.');
  }
  return checkRunInput({
    threadId,
    runId,
    // The id is the engine's: a thread stores each message id once, and a client's could collide.
    messages: text === '' ? [] : [{ id: randomUUID(), role: 'user', content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...(resume === undefined ? {} : { resume }),
  });
}
