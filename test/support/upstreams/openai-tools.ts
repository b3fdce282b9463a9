import { type Chunking, json, sleep, type UpstreamHandler, writeFrame } from './scripted-upstream';

// Answers of the fake OpenAI upstream that call tools, JSON and SSE, byte for byte as OpenAI
// sends them: the tests of /v1/messages read them back as tool_use blocks.

export interface OpenAiToolCallScript {
  /** Text before the calls; none when absent. */
  text?: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
}

function usageOf(script: OpenAiToolCallScript) {
  const usage = script.usage ?? { prompt_tokens: 31, completion_tokens: 17 };
  return Object.assign({}, usage, { total_tokens: usage.prompt_tokens + usage.completion_tokens });
}

export function toolCallCompletion(script: OpenAiToolCallScript): UpstreamHandler {
  return (request, response) =>
    json(response, 200, {
      id: 'chatcmpl-tools123',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: request.body?.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: script.text ?? null,
            refusal: null,
            tool_calls: script.calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          },
          logprobs: null,
          finish_reason: script.finishReason ?? 'tool_calls',
        },
      ],
      usage: usageOf(script),
    });
}

/**
 * The same answer streamed: the role chunk, the text, then each call's first chunk (id, name,
 * empty arguments) and its arguments in three slices, the finish, the usage, [DONE].
 */
export function toolCallStream(
  script: OpenAiToolCallScript,
  chunking: Chunking = 'whole',
): UpstreamHandler {
  return async (request, response) => {
    const base = {
      id: 'chatcmpl-toolsstream',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: request.body?.model,
    };
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      writeFrame(
        response,
        `data: ${JSON.stringify(
          Object.assign({}, base, {
            choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
            usage: null,
          }),
        )}\n\n`,
        chunking,
      );
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    await chunk({ role: 'assistant', content: '' });
    if (script.text) await chunk({ content: script.text });
    for (const [index, call] of script.calls.entries()) {
      await chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      });
      const third = Math.ceil(call.arguments.length / 3);
      for (let start = 0; start < call.arguments.length; start += third) {
        await sleep(1);
        await chunk({
          tool_calls: [
            { index, function: { arguments: call.arguments.slice(start, start + third) } },
          ],
        });
      }
    }
    await chunk({}, script.finishReason ?? 'tool_calls');
    if (request.body?.stream_options?.include_usage === true)
      await writeFrame(
        response,
        `data: ${JSON.stringify(Object.assign({}, base, { choices: [], usage: usageOf(script) }))}\n\n`,
        chunking,
      );
    await writeFrame(response, 'data: [DONE]\n\n', chunking);
    response.end();
  };
}
