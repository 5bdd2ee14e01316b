import { isRecord } from '../shared/is-record.js';

/**
 * The names of the custom tools a Responses client declared (its request, ConversionContext.requestEcho):
 * another style's model calls them as functions (parse-openai-responses-custom-tool.ts), and those calls go
 * back to the client as `custom_tool_call` items. A call of any other name stays a `function_call`.
 */
export function readCustomToolNames(request: Readonly<Record<string, unknown>> | undefined): ReadonlySet<string> {
  const tools = request?.tools;
  if (!Array.isArray(tools)) return new Set();
  return new Set(tools.flatMap((tool) => (isRecord(tool) && tool.type === 'custom' && typeof tool.name === 'string' ? [tool.name] : [])));
}
