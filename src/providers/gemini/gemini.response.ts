import { randomBytes } from 'node:crypto';
import { tokenCount } from '../chat-input';
import type { FinishReason, TokenUsage, UpstreamChatResult } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';
import { withThoughtSignature } from './gemini.tool-call-id';

// Gemini GenerateContentResponse -> the adapter contract. Pure apart from the tool-call ids, which
// Gemini does not give and OpenAI clients need; tests pass their own generator.

export type ToolCallIdGenerator = () => string;

// Hex, so a generated id never contains the marker a thought signature is appended with.
export const randomToolCallId: ToolCallIdGenerator = () =>
  `call_${randomBytes(12).toString('hex')}`;

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponsePart {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: Record<string, unknown> };
  thoughtSignature?: string;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiResponsePart[] };
  finishReason?: string;
  index?: number;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  error?: unknown;
}

/**
 * Gemini's reasons besides STOP and MAX_TOKENS (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT,
 * SPII, LANGUAGE, IMAGE_SAFETY, MALFORMED_FUNCTION_CALL, OTHER, ...) all mean the answer was cut
 * by the provider for a reason other than length: OpenAI's nearest is content_filter.
 */
export function mapGeminiFinishReason(
  raw: string | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls && (raw === undefined || raw === 'STOP')) return 'tool_calls';
  if (raw === undefined || raw === 'STOP') return 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  return 'content_filter';
}

/**
 * promptTokenCount includes the cached tokens (cachedContentTokenCount) already; tool-use prompt
 * tokens are added. candidatesTokenCount leaves out thinking, which is paid as output: added, and
 * kept as the reasoning class.
 */
export function mapGeminiUsage(usage: GeminiUsageMetadata | undefined): TokenUsage {
  const reasoningTokens = tokenCount(usage?.thoughtsTokenCount);
  return {
    promptTokens: tokenCount(usage?.promptTokenCount) + tokenCount(usage?.toolUsePromptTokenCount),
    completionTokens: tokenCount(usage?.candidatesTokenCount) + reasoningTokens,
    ...(typeof usage?.cachedContentTokenCount === 'number'
      ? { cachedTokens: tokenCount(usage.cachedContentTokenCount) }
      : {}),
    ...(typeof usage?.thoughtsTokenCount === 'number' ? { reasoningTokens } : {}),
  };
}

export interface GeminiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Visible text (thought summaries left out) and function calls of one candidate. */
export function candidateOutput(
  candidate: GeminiCandidate | undefined,
  newId: ToolCallIdGenerator,
): { text: string; toolCalls: GeminiToolCall[] } {
  const parts = Array.isArray(candidate?.content?.parts) ? candidate.content.parts : [];
  const text = parts
    .filter((part) => typeof part?.text === 'string' && part.thought !== true)
    .map((part) => part.text)
    .join('');
  const toolCalls = parts
    .filter((part) => typeof part?.functionCall?.name === 'string')
    .map((part) => ({
      id: withThoughtSignature(
        newId(),
        typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined,
      ),
      type: 'function' as const,
      function: {
        name: part.functionCall!.name as string,
        arguments: JSON.stringify(part.functionCall!.args ?? {}),
      },
    }));
  return { text, toolCalls };
}

/** The first candidate: the adapter refuses n > 1 (refuseUnsupported), so Gemini is never asked for more. */
export function mapGeminiResponse(
  body: unknown,
  newId: ToolCallIdGenerator = randomToolCallId,
): UpstreamChatResult {
  const response = body as GeminiResponse | null;
  if (!response || typeof response !== 'object' || Array.isArray(response)) {
    throw new UpstreamError(
      'invalid_response',
      'Gemini answer is not a GenerateContentResponse object',
    );
  }
  const usage = mapGeminiUsage(response.usageMetadata);
  const candidate = response.candidates?.[0];
  if (!candidate) {
    // The prompt itself was blocked: no candidate at all, the reason in promptFeedback.
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason)
      return { content: '', finishReason: 'content_filter', rawFinishReason: blockReason, usage };
    throw new UpstreamError(
      'invalid_response',
      'Gemini answer without candidates or promptFeedback.blockReason',
    );
  }
  const { text, toolCalls } = candidateOutput(candidate, newId);
  return {
    content: text.length > 0 ? text : toolCalls.length > 0 ? null : '',
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    finishReason: mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    rawFinishReason: candidate.finishReason,
    usage,
  };
}
