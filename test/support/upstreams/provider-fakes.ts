import { FakeAnthropicUpstream } from './anthropic-upstream';
import { FakeGeminiUpstream } from './gemini-upstream';
import { FakeOpenAiUpstream } from './openai-upstream';

/** A fake upstream of each provider the gateway translates to, for tests that run on all three. */
export interface ProviderFakes {
  openai: FakeOpenAiUpstream;
  anthropic: FakeAnthropicUpstream;
  gemini: FakeGeminiUpstream;
  close(): Promise<void>;
}

export async function startProviderFakes(): Promise<ProviderFakes> {
  const [openai, anthropic, gemini] = await Promise.all([
    FakeOpenAiUpstream.start(),
    FakeAnthropicUpstream.start(),
    FakeGeminiUpstream.start(),
  ]);
  return {
    openai,
    anthropic,
    gemini,
    close: async () => {
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}
