import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stub received, as tests assert it. */
export type StubRequest = {
  method: string;
  path: string;
  headers: { authorization: string | undefined };
  body: unknown;
};

type Behaviour =
  | { kind: 'reply'; content: string }
  | { kind: 'fail'; status: number; body: unknown }
  | { kind: 'hang' };

export type OpenAiStub = {
  /** The server's origin (`http://127.0.0.1:<port>`); the API lives under `/v1`. */
  url: string;
  /** Every request received, oldest first, but those asking for JSON. */
  requests: StubRequest[];
  /**
   * Chat completions asking for JSON (`response_format` json_object: knowledge extraction), oldest
   * first: kept apart, so that extraction jobs running in the background leave `requests` alone.
   */
  jsonRequests: StubRequest[];
  /** From now on, chat completions answer with this content (streamed word by word when asked to). */
  reply(content: string): void;
  /** From now on, every request fails with this status and JSON body. */
  fail(status: number, body?: unknown): void;
  /** From now on, requests are read but never answered: the client's timeout has to end them. */
  hang(): void;
  /** From now on, chat completions asking for JSON answer with these contents in turn, the last repeating. */
  replyJson(...contents: string[]): void;
  /**
   * From now on, a text gets the vector `vectorFor` gives it (chosen texts, chosen vectors: a
   * question close to a passage that shares none of its words); `undefined` → `stubEmbedding`.
   */
  embedWith(vectorFor: (text: string) => number[] | undefined): void;
  /** Back to the start: requests forgotten, chat completions answering NOT_FOUND, `stubEmbedding` vectors. */
  reset(): void;
  close(): Promise<void>;
};

/** The vector the stub gives a text: deterministic, so tests can compute it too. */
export function stubEmbedding(text: string): number[] {
  const words = text.split(/\s+/).filter(Boolean);
  return [text.length, words.length, (text.match(/[aeiou]/gi) ?? []).length];
}

const readBody = async (request: IncomingMessage) => {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
};

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/** The content in the pieces a model streams: each word with the space before it. */
const tokensOf = (content: string) => content.match(/\s*\S+/g) ?? [];

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI wire format (chat completions, streamed
 * or not, and embeddings), so the engine is tested through the official SDK and real sockets.
 */
/** The environment that points the app's `openai` provider at the stand-in (model calls time out after 0.5 s). */
export const openAiEnv = (stub: OpenAiStub) => ({
  AI_PROVIDER: 'openai',
  AI_BASE_URL: `${stub.url}/v1`,
  AI_API_KEY: 'test-key',
  AI_MODEL: 'stub-model',
  AI_TIMEOUT_MS: '500',
});

export async function startOpenAiStub(): Promise<OpenAiStub> {
  const initially: Behaviour = { kind: 'reply', content: 'NOT_FOUND' };
  let behaviour: Behaviour = initially;
  let vectorFor: (text: string) => number[] | undefined = () => undefined;
  const requests: StubRequest[] = [];
  const jsonRequests: StubRequest[] = [];
  let jsonReplies: string[] = [];
  let sequence = 0;

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://stub').pathname;
    const wantsJson =
      (body as { response_format?: { type?: string } })?.response_format?.type === 'json_object';
    (wantsJson ? jsonRequests : requests).push({
      method: request.method ?? '',
      path,
      headers: { authorization: request.headers.authorization },
      body,
    });
    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'fail') return sendJson(response, behaviour.status, behaviour.body);
    const payload = (body ?? {}) as { model?: string; stream?: boolean; input?: string | string[] };
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-stub-${++sequence}`;

    if (request.method === 'POST' && path === '/v1/embeddings') {
      const inputs = typeof payload.input === 'string' ? [payload.input] : (payload.input ?? []);
      return sendJson(response, 200, {
        object: 'list',
        data: inputs.map((input, index) => ({
          object: 'embedding',
          index,
          embedding: vectorFor(input) ?? stubEmbedding(input),
        })),
        model: payload.model,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      });
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(response, 404, { error: { message: 'Unknown route', type: 'invalid_request_error' } });
    }
    const content =
      (wantsJson && (jsonReplies.length > 1 ? jsonReplies.shift() : jsonReplies[0])) || behaviour.content;
    if (!payload.stream) {
      return sendJson(response, 200, {
        id,
        object: 'chat.completion',
        created,
        model: payload.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finishReason: string | null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: payload.model,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
      })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    for (const token of tokensOf(content)) response.write(chunk({ content: token }, null));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    jsonRequests,
    reply(content) {
      behaviour = { kind: 'reply', content };
    },
    fail(status, body = { error: { message: 'stub failure', type: 'server_error' } }) {
      behaviour = { kind: 'fail', status, body };
    },
    hang() {
      behaviour = { kind: 'hang' };
    },
    replyJson(...contents) {
      jsonReplies = contents;
    },
    embedWith(chosen) {
      vectorFor = chosen;
    },
    reset() {
      behaviour = initially;
      vectorFor = () => undefined;
      requests.length = 0;
      jsonRequests.length = 0;
      jsonReplies = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
