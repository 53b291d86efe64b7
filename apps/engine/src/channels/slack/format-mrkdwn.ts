// The agent's markdown in Slack's mrkdwn, by slackify-markdown (a remark pipeline: bold, links,
// lists, code and escaping of &, < and > in text).
import { slackifyMarkdown } from 'slackify-markdown';

/**
 * Slack recommends at most 4,000 characters of message text (it truncates at 40,000): longer replies
 * are split by the worker.
 */
export const SLACK_TEXT_LIMIT = 4000;

// slackify-markdown passes raw HTML through, and `<!channel>`, `<!here>`, `<!everyone>` and
// `<!subteam^…>` are HTML to markdown. A reply is shaped by whoever wrote to the agent, so it never
// notifies a whole channel or group: the sequence is escaped and Slack shows it as text.
const BROADCAST = /<!/g;

export function formatMrkdwn(markdown: string): string {
  return slackifyMarkdown(markdown).replace(BROADCAST, '&lt;!').trim();
}

/** Plain text as mrkdwn that shows it as written: Slack's three control characters escaped. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
