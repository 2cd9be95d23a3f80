import { PassThrough } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { toAppError } from '../../http/errors.ts';
import type { ChatTurnView } from './schemas.ts';
import { chatTurnSchema } from './schemas.ts';

export const turnEventsDescription = `With \`Accept: text/event-stream\` the answer streams as server-sent events (status 201 too):
- \`token\` — \`{"text": "..."}\`: the next chunk of the answer; the chunks concatenate to the answer;
- \`citation\` — one per citation, the Citation, once the answer is complete;
- \`done\` — \`{conversationId, userMessage, assistantMessage, message}\`, as stored (the JSON response's body);
- \`error\` — \`{success: false, error, code}\`, when the answer fails after its first token (the provider broke off,
  the budget ran out meanwhile): nothing of the turn is stored or charged.
Failures before the first token (validation, 404, 429, a provider error) are ordinary JSON errors.`;

/** Whether the client asked for the answer as server-sent events. */
export const wantsEvents = (request: FastifyRequest) =>
  (request.headers.accept ?? '').toLowerCase().includes('text/event-stream');

/** Chunks of a finished answer, word by word, that concatenate back to it exactly. */
const wordsOf = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];

/** The 201 of a turn, as JSON or as an event stream. */
export const turnResponse = {
  description: 'The stored turn (JSON), or the answer as it is produced (server-sent events)',
  content: {
    'application/json': { schema: chatTurnSchema },
    'text/event-stream': { schema: z.string() },
  },
};

/**
 * Streams a turn: the tokens the engine yields as they come (or, from an engine that does not
 * stream, the finished answer word by word), then its citations, then the stored turn. The head
 * goes out with the first event, so that a failure before it is an ordinary JSON error.
 */
export async function sendTurnEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: (onToken: (text: string) => void) => Promise<ChatTurnView>,
) {
  const stream = new PassThrough();
  let began = false;
  const beginning = Promise.withResolvers<void>();
  const send = (event: string, data: unknown) => {
    stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    began = true;
    beginning.resolve();
  };
  const produced = (async () => {
    let streamed = false;
    try {
      const turn = await answer((text) => {
        streamed = true;
        send('token', { text });
      });
      if (!streamed) for (const text of wordsOf(turn.assistantMessage.content)) send('token', { text });
      for (const citation of turn.assistantMessage.citations) send('citation', citation);
      send('done', z.encode(chatTurnSchema, turn));
    } catch (error) {
      if (!began) throw error;
      const failure = toAppError(error as FastifyError, request);
      send('error', { success: false, error: failure.message, code: failure.code });
    } finally {
      stream.end();
    }
  })();
  await Promise.race([beginning.promise, produced]);
  return reply
    .status(201)
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache, no-transform')
    .header('x-accel-buffering', 'no')
    .send(stream as unknown as string);
}
