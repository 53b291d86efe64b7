// What a model (and the AG-UI client) reads back from an MCP tool call: its content as text.
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';

type ToolCallResult = { content?: unknown; structuredContent?: unknown; toolResult?: unknown };

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    case 'resource_link':
      return `[resource ${block.uri}]`;
    default:
      return '';
  }
}

export function describeToolResult(result: ToolCallResult): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const text = blocks
    .map(describeBlock)
    .filter((part) => part !== '')
    .join('\n');
  if (text !== '') return text;
  // Tools that answer only with structured content, and servers from before content blocks.
  const structured = result.structuredContent ?? result.toolResult;
  return structured === undefined ? '' : JSON.stringify(structured);
}
