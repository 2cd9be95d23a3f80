import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { Config } from '../../config.ts';
import { AppError } from '../../http/errors.ts';

/** A client for the OpenAI-compatible endpoint AI_BASE_URL names, with AI_TIMEOUT_MS per request. */
export function createOpenAiClient(settings: Config['ai']): OpenAI {
  return new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    timeout: settings.timeoutMs,
    // A retry would double an asking user's wait; a failed question costs nothing and can be asked
    // again, and background jobs are retried by the job queue.
    maxRetries: 0,
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
