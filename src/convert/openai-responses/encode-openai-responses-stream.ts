import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import { encodeSseEvent } from '../../streaming/encode-sse.js';
import type { ConversionContext, StreamEncoder } from '../../canonical/conversion.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { formatOpenaiErrorWords } from '../../errors/format-openai-error-words.js';
import { formatOpenaiResponsesErrorCode } from './format-openai-responses-error-code.js';
import { formatOpenaiResponsesEnvelope, type OpenaiResponsesEnvelopeFields } from './format-openai-responses-envelope.js';
import { createCustomToolInputDecoder, type CustomToolInputDecoder } from './decode-custom-tool-input.js';
import { formatCustomToolCallItem, formatFunctionCallItem, formatMessageItem, formatOutputTextPart, formatReasoningItem } from './format-openai-responses-output.js';
import { readCustomToolNames } from './read-custom-tool-names.js';
import { formatOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';
import { mapToOpenaiResponsesOutcome } from './map-openai-responses-finish-reason.js';
import { formatOpenaiResponsesUsage } from './read-openai-responses-usage.js';
import type { ReasoningIssuer } from '../../canonical/canonical-request.js';

type Payload = Record<string, unknown>;
/** `refusal`: its one content part is a refusal, not output text. */
type MessageItem = { kind: 'message'; outputIndex: number; id: string; text: string; refusal: boolean };
type ReasoningItem = { kind: 'reasoning'; outputIndex: number; id: string; text: string; summaryOpen: boolean; encryptedContent: string | undefined };
type OpenItem = MessageItem | ReasoningItem;
interface ToolItem {
  outputIndex: number;
  id: string;
  call: { id: string; name: string; arguments: string };
  /** A call of one of the client's custom tools: its text read out of the arguments as they come. */
  customInput: CustomToolInputDecoder | undefined;
}
type ItemStatus = 'completed' | 'incomplete';

/**
 * Canonical parts → the SSE a Responses client reads (protocols.md §8): `response.created`, `response.in_progress`,
 * then one output item per text run (`message` with one `output_text` part), per reasoning run (`reasoning` with
 * one summary part; a signature or redacted data becomes its `encrypted_content`) and per tool call
 * (`function_call`; for one of the client's custom tools a `custom_tool_call`, its text streamed out of the
 * arguments by `response.custom_tool_call_input.delta`), each opened when its kind starts and closed when it ends; last `response.completed`
 * (`.incomplete` for a length or content-filter stop, `.failed` for an error) with the whole Response. Every
 * event names its type in `event:` and carries an increasing `sequence_number`; the stream has no `[DONE]`.
 */
export function createOpenaiResponsesStreamEncoder(context: ConversionContext): StreamEncoder {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  let sequence = 0;
  let started = false;
  let done = false;
  let responseId = '';
  let createdAt = context.now;
  let nextOutputIndex = 0;
  let open: OpenItem | undefined;
  const tools = new Map<number, ToolItem>();
  const customTools = readCustomToolNames(context.requestEcho);
  const output = new Map<number, Payload>();
  let usage: NormalizedUsage | undefined;
  let lastError: { code: string; message: string } | undefined;

  const frame = (type: string, payload: Payload): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`;

  function envelope(fields: Pick<OpenaiResponsesEnvelopeFields, 'status' | 'incompleteDetails' | 'error'>): Payload {
    const items = [...output.entries()].sort(([left], [right]) => left - right).map(([, item]) => item);
    const final = fields.status !== 'in_progress';
    return formatOpenaiResponsesEnvelope({
      id: responseId,
      createdAt,
      model: context.requestedModel,
      output: final ? items : [],
      usage: final && usage !== undefined ? formatOpenaiResponsesUsage(usage) : null,
      completedAt: fields.status === 'completed' ? context.now : null,
      request: context.requestEcho,
      ...fields,
    });
  }

  function start(id: string, created: number): string {
    started = true;
    responseId = id.startsWith('resp_') ? id : context.newId('resp_');
    createdAt = created > 0 ? created : context.now;
    const initial = envelope({ status: 'in_progress', incompleteDetails: null, error: null });
    return frame('response.created', { response: initial }) + frame('response.in_progress', { response: initial });
  }

  function addItem(outputIndex: number, item: Payload): string {
    return frame('response.output_item.added', { output_index: outputIndex, item });
  }

  function doneItem(outputIndex: number, item: Payload): string {
    output.set(outputIndex, item);
    return frame('response.output_item.done', { output_index: outputIndex, item });
  }

  function closeOpen(status: ItemStatus): string {
    const item = open;
    open = undefined;
    if (item === undefined) return '';
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (item.kind === 'message' && item.refusal) {
      return (
        frame('response.refusal.done', { ...at, content_index: 0, refusal: item.text }) +
        frame('response.content_part.done', { ...at, content_index: 0, part: { type: 'refusal', refusal: item.text } }) +
        doneItem(item.outputIndex, formatMessageItem(item.id, status, [{ type: 'text', text: item.text, refusal: true }]))
      );
    }
    if (item.kind === 'message') {
      const part = formatOutputTextPart(item.text);
      return (
        frame('response.output_text.done', { ...at, content_index: 0, text: item.text, logprobs: [] }) +
        frame('response.content_part.done', { ...at, content_index: 0, part }) +
        doneItem(item.outputIndex, formatMessageItem(item.id, status, [item.text]))
      );
    }
    const summary = item.summaryOpen
      ? frame('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: item.text }) +
        frame('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text: item.text } })
      : '';
    return summary + doneItem(item.outputIndex, formatReasoningItem(item.id, item.text, item.encryptedContent));
  }

  /** The open message item of the same kind (text or refusal), or a new one after closing whatever else is open. */
  function messageItem(refusal: boolean): { frames: string; item: MessageItem } {
    if (open?.kind === 'message' && open.refusal === refusal) return { frames: '', item: open };
    const frames = closeOpen('completed');
    const item: MessageItem = { kind: 'message', outputIndex: nextOutputIndex++, id: context.newId('msg_'), text: '', refusal };
    open = item;
    const at = { item_id: item.id, output_index: item.outputIndex };
    const part = refusal ? { type: 'refusal', refusal: '' } : formatOutputTextPart('');
    return {
      frames: frames + addItem(item.outputIndex, formatMessageItem(item.id, 'in_progress', [])) + frame('response.content_part.added', { ...at, content_index: 0, part }),
      item,
    };
  }

  /** The open reasoning item unless opaque data sealed it, or a new one after closing whatever else is open. */
  function reasoningItem(): { frames: string; item: ReasoningItem } {
    if (open?.kind === 'reasoning' && open.encryptedContent === undefined) return { frames: '', item: open };
    const frames = closeOpen('completed');
    const item: ReasoningItem = { kind: 'reasoning', outputIndex: nextOutputIndex++, id: context.newId('rs_'), text: '', summaryOpen: false, encryptedContent: undefined };
    open = item;
    return { frames: frames + addItem(item.outputIndex, formatReasoningItem(item.id, '', undefined)), item };
  }

  function attachOpaque(part: { signature?: string; redactedData?: string; issuer?: ReasoningIssuer }): string {
    const { frames, item } = reasoningItem();
    // The item's text so far is the thinking a signature signs (Anthropic's: it travels with it).
    const encrypted = formatOpenaiResponsesEncryptedContent({ ...part, text: item.text });
    warnings.push(...encrypted.warnings);
    item.encryptedContent = encrypted.value;
    return frames;
  }

  function endTool(index: number, status: ItemStatus): string {
    const tool = tools.get(index);
    if (tool === undefined) return '';
    tools.delete(index);
    const at = { item_id: tool.id, output_index: tool.outputIndex };
    if (tool.customInput !== undefined) {
      const whole = tool.customInput.end();
      whole.warnings.forEach(warn);
      const { input, rest } = whole.value;
      return (
        (rest === '' ? '' : frame('response.custom_tool_call_input.delta', { ...at, delta: rest })) +
        frame('response.custom_tool_call_input.done', { ...at, input }) +
        doneItem(tool.outputIndex, formatCustomToolCallItem(tool.id, status, { id: tool.call.id, name: tool.call.name, input }))
      );
    }
    return (
      frame('response.function_call_arguments.done', { ...at, name: tool.call.name, arguments: tool.call.arguments }) +
      doneItem(tool.outputIndex, formatFunctionCallItem(tool.id, status, tool.call))
    );
  }

  function complete(fields: Pick<OpenaiResponsesEnvelopeFields, 'status' | 'incompleteDetails' | 'error'>): string {
    done = true;
    const status: ItemStatus = fields.status === 'completed' ? 'completed' : 'incomplete';
    let frames = closeOpen(status);
    for (const index of [...tools.keys()]) frames += endTool(index, status);
    const type = fields.status === 'completed' ? 'response.completed' : fields.status === 'failed' ? 'response.failed' : 'response.incomplete';
    return frames + frame(type, { response: envelope(fields) });
  }

  function encodePart(part: CanonicalStreamPart): string {
    switch (part.type) {
      case 'start':
        return '';
      case 'text-delta': {
        if (part.text === '') return '';
        const refusal = part.refusal === true;
        const { frames, item } = messageItem(refusal);
        item.text += part.text;
        const at = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
        return frames + (refusal ? frame('response.refusal.delta', { ...at, delta: part.text }) : frame('response.output_text.delta', { ...at, delta: part.text, logprobs: [] }));
      }
      case 'reasoning-delta': {
        if (part.text === '') return '';
        let { frames, item } = reasoningItem();
        if (!item.summaryOpen) {
          item.summaryOpen = true;
          frames += frame('response.reasoning_summary_part.added', { item_id: item.id, output_index: item.outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } });
        }
        item.text += part.text;
        return frames + frame('response.reasoning_summary_text.delta', { item_id: item.id, output_index: item.outputIndex, summary_index: 0, delta: part.text });
      }
      case 'reasoning-signature':
        return attachOpaque({ signature: part.signature, ...(part.issuer === undefined ? {} : { issuer: part.issuer }) });
      case 'reasoning-redacted':
        return attachOpaque({ redactedData: part.data, ...(part.issuer === undefined ? {} : { issuer: part.issuer }) });
      case 'tool-call-start': {
        if (tools.has(part.index)) warn(`tool call ${part.index} started twice; the second start is ignored`);
        if (tools.has(part.index)) return '';
        const custom = customTools.has(part.name);
        const call = { id: part.id === '' ? context.newId('call_') : part.id, name: part.name, arguments: '' };
        const tool: ToolItem = { outputIndex: nextOutputIndex++, id: context.newId(custom ? 'ctc_' : 'fc_'), call, customInput: custom ? createCustomToolInputDecoder(part.name) : undefined };
        tools.set(part.index, tool);
        const added = custom ? formatCustomToolCallItem(tool.id, 'in_progress', { ...call, input: '' }) : formatFunctionCallItem(tool.id, 'in_progress', call);
        return closeOpen('completed') + addItem(tool.outputIndex, added);
      }
      case 'tool-call-delta': {
        const tool = tools.get(part.index);
        if (tool === undefined) warn(`arguments for unknown tool call ${part.index} dropped`);
        if (tool === undefined || part.argumentsDelta === '') return '';
        tool.call.arguments += part.argumentsDelta;
        const at = { item_id: tool.id, output_index: tool.outputIndex };
        if (tool.customInput === undefined) return frame('response.function_call_arguments.delta', { ...at, delta: part.argumentsDelta });
        const text = tool.customInput.push(part.argumentsDelta);
        return text === '' ? '' : frame('response.custom_tool_call_input.delta', { ...at, delta: text });
      }
      case 'tool-call-end':
        return endTool(part.index, 'completed');
      case 'usage':
        usage = part.usage;
        return '';
      case 'input-usage':
      case 'web-searches':
      case 'uncarried-output':
      case 'output-item':
        return '';
      case 'error':
        // In OpenAI's words, never another vendor's (format-openai-responses-error-code.ts); the message is the upstream's.
        lastError = { code: formatOpenaiResponsesErrorCode(part.code), message: part.message };
        return frame('error', { code: formatOpenaiResponsesErrorEventCode(part.code), message: part.message, param: null });
      case 'finish': {
        if (part.usage !== undefined) usage = part.usage;
        const outcome = mapToOpenaiResponsesOutcome(part.finishReason);
        warnings.push(...outcome.warnings);
        const failed = outcome.value.status === 'failed';
        const error = failed ? (lastError ?? { code: 'server_error', message: `the upstream failed (${part.finishReason.raw ?? 'no reason given'})` }) : null;
        return complete({ status: outcome.value.status, incompleteDetails: outcome.value.incompleteDetails, error });
      }
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled stream part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  return {
    warnings,
    encode(part: CanonicalStreamPart): string {
      if (done) {
        warn(`a ${part.type} part after the end of the response is dropped`);
        return '';
      }
      let frames = '';
      if (!started) {
        if (part.type !== 'start') warn('the stream had no start part');
        frames = part.type === 'start' ? start(part.id, part.created) : start('', 0);
      }
      return frames + encodePart(part);
    },
    end(): string {
      if (done) return '';
      warn('the stream ended before its finish part: the response is reported as failed');
      const frames = started ? '' : start('', 0);
      return frames + complete({ status: 'failed', incompleteDetails: null, error: lastError ?? { code: 'server_error', message: 'the upstream stream ended before the response completed' } });
    },
  };
}

/**
 * A mid-stream error event for a Responses stream the gateway relays rather than encodes (its own
 * `sequence_number` is the upstream's to give, so none is written).
 */
export function encodeOpenaiResponsesStreamError(message: string, code: string | undefined): string {
  return encodeSseEvent(JSON.stringify({ type: 'error', code: formatOpenaiResponsesErrorEventCode(code), message, param: null }), 'error');
}

/**
 * The `error` event's code (a free string): OpenAI's code for the error's kind (`server_is_overloaded`,
 * `rate_limit_exceeded`), else the failed Response's, so that it is never null nor another vendor's word.
 */
function formatOpenaiResponsesErrorEventCode(code: string | undefined): string {
  return formatOpenaiErrorWords(code).code ?? formatOpenaiResponsesErrorCode(code);
}
