import {
  countWithOpenAiEncoding,
  loadOpenAiEncoding,
  type OpenAiEncodingName,
} from './openai-encoding';
import type { TokenizerBudget } from './tokenizer-budget';

/**
 * How one model family turns a chat request into prompt tokens, as an upper bound: `text()` never
 * returns less than the family's tokenizer would count, and the overheads are at least what the
 * family's chat format adds (docs/keys-and-limits.md, "The prompt estimate").
 */
export interface PromptTokenCounter {
  /** 'o200k_base', 'cl100k_base' or 'utf8-bytes'. */
  readonly name: string;
  /** Loads what the counter needs before a request is counted (the tokenizer's table). */
  prepare(): void;
  /** An upper bound of the tokens of one text; what is left once `budget` is spent is bytes. */
  text(text: string, budget: TokenizerBudget): number;
  /** Tokens the chat format adds around each message, besides its role and content. */
  readonly perMessage: number;
  /** Tokens the chat format adds once per request (the reply's priming). */
  readonly perRequest: number;
  /** Tokens added for a message's `name`, besides the name's own text. */
  readonly perName: number;
  /** Tokens added for each tool call in an assistant message, besides its JSON text. */
  readonly perToolCall: number;
  /** Tokens added when the request declares tools, besides their JSON text. */
  readonly toolsOverhead: number;
  /** The largest documented cost of one image at this detail ('low', 'high', 'auto' or none). */
  image(detail: string | undefined): number;
}

/**
 * Every image costs at most this many tokens with any provider we route to: above Anthropic's
 * largest documented image (about 4,800 tokens at 2,576 px on the long edge) and Gemini's highest
 * media resolution. Used wherever the family has no table of its own.
 */
export const IMAGE_TOKENS_CEILING = 6_400;

/**
 * The bound for every tokenizer that starts from a text's UTF-8 bytes: each merge of a byte-level
 * BPE joins two tokens into one, so a text never has more tokens than bytes. SentencePiece models
 * with byte fallback split a character into at most its bytes and may add one word-start piece,
 * hence the + 1. Chat templates add a handful of special tokens per turn; 8 per message and per
 * request is more than any published template (ChatML, Llama 3, Gemma) adds.
 */
export const UTF8_BYTES_COUNTER: PromptTokenCounter = Object.freeze({
  name: 'utf8-bytes',
  prepare: () => undefined,
  text: (text: string) => (text.length === 0 ? 0 : Buffer.byteLength(text, 'utf8') + 1),
  perMessage: 8,
  perRequest: 8,
  perName: 2,
  perToolCall: 8,
  // Anthropic documents a tool-use system prompt of up to 346 tokens; no provider documents more.
  toolsOverhead: 512,
  image: () => IMAGE_TOKENS_CEILING,
});

/**
 * OpenAI's published chat format: `<|im_start|>role<|im_sep|>content<|im_end|>`, 3 tokens per
 * message besides the role, 1 for a name, 3 to prime the reply (OpenAI cookbook, "How to count
 * tokens with tiktoken"). Tool definitions are counted as their JSON text, which is longer than
 * the TypeScript-like rendering OpenAI gives the model, plus a margin for its namespace wrapper.
 */
function openAiCounter(encoding: OpenAiEncodingName, image: ImageCost): PromptTokenCounter {
  return Object.freeze({
    name: encoding,
    prepare: () => loadOpenAiEncoding(encoding),
    text: (text: string, budget: TokenizerBudget) =>
      countWithOpenAiEncoding(encoding, text, budget),
    perMessage: 3,
    perRequest: 3,
    perName: 1,
    perToolCall: 8,
    toolsOverhead: 32,
    image: (detail: string | undefined) => (detail === 'low' ? image.low : image.high),
  });
}

interface ImageCost {
  low: number;
  high: number;
}

/**
 * OpenAI's documented image costs ("Images and vision", calculating costs). Tile models: a base
 * cost plus a cost per 512 px tile; a high-detail image is scaled into 2048 x 2048 and then to 768
 * px on its short side, so at most 2 x 4 = 8 tiles. Patch models: at most 1,536 patches of 32 px,
 * times the model's multiplier, whatever the detail.
 */
function tiles(base: number, tile: number): ImageCost {
  return { low: base, high: base + 8 * tile };
}
function patches(multiplier: number): ImageCost {
  const cost = Math.ceil(1_536 * multiplier);
  return { low: cost, high: cost };
}

/** First match wins: the more specific names come first. */
const OPENAI_MODELS: Array<{ pattern: RegExp; encoding: OpenAiEncodingName; image: ImageCost }> = [
  { pattern: /^gpt-4o-mini/, encoding: 'o200k_base', image: tiles(2_833, 5_667) },
  { pattern: /^gpt-4\.1-nano|^gpt-5(\.\d+)?-nano/, encoding: 'o200k_base', image: patches(2.46) },
  { pattern: /^gpt-4\.1-mini|^gpt-5(\.\d+)?-mini/, encoding: 'o200k_base', image: patches(1.62) },
  { pattern: /^o4-mini/, encoding: 'o200k_base', image: patches(1.72) },
  { pattern: /^(o1|o3)/, encoding: 'o200k_base', image: tiles(75, 150) },
  { pattern: /^gpt-5/, encoding: 'o200k_base', image: tiles(70, 140) },
  {
    pattern: /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5)/,
    encoding: 'o200k_base',
    image: tiles(85, 170),
  },
  { pattern: /^(gpt-oss|codex)/, encoding: 'o200k_base', image: tiles(85, 170) },
  { pattern: /^gpt-4-turbo|^gpt-4-vision/, encoding: 'cl100k_base', image: tiles(85, 170) },
  {
    pattern: /^(gpt-4|gpt-3\.5|gpt-35)/,
    encoding: 'cl100k_base',
    image: { low: IMAGE_TOKENS_CEILING, high: IMAGE_TOKENS_CEILING },
  },
];

const OPENAI_COUNTERS = new Map<string, PromptTokenCounter>();

/** What a deployment needs to say for its counter: its provider and the model it sends upstream. */
export interface TokenizedModel {
  provider: string;
  model: string;
}

/**
 * The counter for a model: OpenAI's tokenizer for OpenAI's own model names (also behind a router
 * prefix such as `openai/gpt-4o`), the UTF-8 byte bound for everything else: Anthropic and Gemini
 * publish no tokenizer, and an OpenAI-compatible server may run any model.
 */
export function promptTokenCounterFor({ provider, model }: TokenizedModel): PromptTokenCounter {
  if (provider !== 'openai') return UTF8_BYTES_COUNTER;
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  const known = OPENAI_MODELS.find((entry) => entry.pattern.test(name));
  if (!known) return UTF8_BYTES_COUNTER;
  const id = `${known.encoding}:${known.image.low}:${known.image.high}`;
  let counter = OPENAI_COUNTERS.get(id);
  if (!counter) OPENAI_COUNTERS.set(id, (counter = openAiCounter(known.encoding, known.image)));
  return counter;
}
