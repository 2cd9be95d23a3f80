import { Gauge, Histogram, Registry } from 'prom-client';

/**
 * Metrics of events that happen anywhere in the process (not owned by one app instance): calls to
 * the AI provider and open event streams. /metrics serves them beside the app's own.
 */
export const processMetrics = new Registry();

export const aiProviderRequests = new Histogram({
  name: 'ai_provider_request_duration_seconds',
  help: 'Requests to the OpenAI-compatible AI provider, by operation (API path) and outcome (ok, http_4xx, http_5xx, error).',
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [processMetrics],
});

export const openEventStreams = new Gauge({
  name: 'notification_streams_open',
  help: 'Notification event streams (GET /notifications/stream) open on this instance.',
  registers: [processMetrics],
});

/** `fetch` that times each request into `ai_provider_request_duration_seconds`. */
export function timedFetch(fetchImpl: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // The path after the API version names the operation: chat/completions, embeddings.
    const operation = url.pathname.replace(/^.*?\/v\d+\//, '').replace(/^\//, '') || '/';
    const stop = aiProviderRequests.startTimer({ operation });
    try {
      const response = await fetchImpl(input, init);
      stop({ outcome: response.ok ? 'ok' : `http_${Math.floor(response.status / 100)}xx` });
      return response;
    } catch (error) {
      stop({ outcome: 'error' });
      throw error;
    }
  };
}
