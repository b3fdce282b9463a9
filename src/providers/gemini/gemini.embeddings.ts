import { UpstreamError } from '../../common/errors/upstream.error';
import type { DeploymentConfig } from '../../config/gateway-config.types';

// Gemini's batchEmbedContents (POST {base_url}/models/<model>:batchEmbedContents). Pure, no I/O.

/** Gemini takes at most this many requests in one batchEmbedContents call. */
export const GEMINI_EMBED_BATCH = 100;

export function geminiEmbedUrl(deployment: Pick<DeploymentConfig, 'baseUrl' | 'upstreamModel'>) {
  const base = (deployment.baseUrl ?? '').replace(/\/+$/, '');
  return `${base}/models/${geminiModel(deployment)}:batchEmbedContents`;
}

/** One batch: each text its own request, `dimensions` as `outputDimensionality`. */
export function buildBatchEmbedBody(
  deployment: Pick<DeploymentConfig, 'upstreamModel'>,
  texts: string[],
  dimensions: number | undefined,
): Record<string, unknown> {
  const model = `models/${geminiModel(deployment)}`;
  return {
    requests: texts.map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(dimensions !== undefined ? { outputDimensionality: dimensions } : {}),
    })),
  };
}

/** The batch's vectors, in the order of its requests. */
export function mapBatchEmbeddings(json: unknown, count: number): number[][] {
  const embeddings = (json as { embeddings?: Array<{ values?: unknown }> } | null)?.embeddings;
  if (!Array.isArray(embeddings) || embeddings.length !== count)
    throw new UpstreamError('invalid_response', `expected ${count} embeddings`);
  return embeddings.map((embedding, index) => {
    if (!Array.isArray(embedding?.values))
      throw new UpstreamError('invalid_response', `embedding ${index} has no values`);
    return embedding.values as number[];
  });
}

function geminiModel(deployment: Pick<DeploymentConfig, 'upstreamModel'>): string {
  return (deployment.upstreamModel ?? '').replace(/^models\//, '');
}
