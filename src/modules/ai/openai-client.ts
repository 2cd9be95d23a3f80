import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { Config } from '../../config.ts';
import { AppError } from '../../http/errors.ts';
import { timedFetch } from '../../lib/metrics.ts';

/** A client for the OpenAI-compatible endpoint AI_BASE_URL names, with AI_TIMEOUT_MS per request. */
export function createOpenAiClient(settings: Config['ai']): OpenAI {
  return new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    timeout: settings.timeoutMs,
    // A retry would double an asking user's wait; a failed question costs nothing and can be asked
    // again, and background jobs are retried by the job queue.
    maxRetries: 0,
    fetch: timedFetch(),
  });
}

export const providerError = (reason: string) =>
  new AppError(502, 'AI_PROVIDER_ERROR', `The AI provider failed: ${reason}`);

/**
 * A short reason that names what went wrong and nothing else: the SDK's own messages may echo the
 * provider's body or request details, which must not reach callers.
 */
export function toProviderError(error: unknown, timeoutMs: number): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof APIConnectionTimeoutError) return providerError(`no answer within ${timeoutMs} ms`);
  if (error instanceof APIConnectionError) return providerError('could not connect');
  if (error instanceof APIError && error.status !== undefined) return providerError(`HTTP ${error.status}`);
  return providerError('malformed response');
}

/** Texts to vectors, one per text, in order. */
export type Embedder = (texts: string[]) => Promise<number[][]>;

/**
 * The embedding call of the OpenAI-compatible endpoint, when `AI_EMBEDDING_MODEL` names a model:
 * what the search layer's passage vectors and a model-backed engine share (so that the index
 * depends on the provider's client, not on an answer engine).
 */
export function createOpenAiEmbedder(
  settings: Config['ai'],
  client: OpenAI = createOpenAiClient(settings),
): Embedder | undefined {
  const { embeddingModel } = settings;
  if (!embeddingModel) return undefined;
  return async (texts) => {
    if (texts.length === 0) return [];
    let vectors: number[][];
    try {
      const response = await client.embeddings.create({
        model: embeddingModel,
        input: texts,
        encoding_format: 'float',
      });
      vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
    } catch (error) {
      throw toProviderError(error, settings.timeoutMs);
    }
    if (vectors.length !== texts.length || vectors.some((vector) => !Array.isArray(vector))) {
      throw providerError('malformed response');
    }
    return vectors;
  };
}
