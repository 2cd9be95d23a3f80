import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in received: the form fields and the file, as a provider would read them. */
export type TranscriptionRequest = {
  authorization: string | undefined;
  model: string;
  responseFormat: string;
  granularities: string[];
  fileName: string;
  fileType: string;
  fileBytes: Buffer;
};

type Segment = { start: number; end: number; text: string; speaker?: string };

/**
 * A speech-to-text server on loopback that speaks the OpenAI transcription protocol
 * (`POST /v1/audio/transcriptions`, multipart in, `verbose_json` out), as whisper.cpp's server and
 * faster-whisper servers do. It answers the segments it is told to, or fails as told.
 */
export async function startTranscriptionServer() {
  const requests: TranscriptionRequest[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: { text: '', segments: [] } };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/audio/transcriptions') {
      response.writeHead(404).end();
      return;
    }
    const form = await new Response(Buffer.concat(chunks), {
      headers: { 'content-type': request.headers['content-type'] ?? '' },
    }).formData();
    const file = form.get('file') as File;
    requests.push({
      authorization: request.headers.authorization,
      model: String(form.get('model')),
      responseFormat: String(form.get('response_format')),
      granularities: form.getAll('timestamp_granularities[]').map(String),
      fileName: file.name,
      fileType: file.type,
      fileBytes: Buffer.from(await file.arrayBuffer()),
    });
    response
      .writeHead(answer.status, { 'content-type': 'application/json' })
      .end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** TRANSCRIBE_BASE_URL. */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** From now on, answer these segments (and their text joined). */
    say(segments: Segment[], duration?: number) {
      answer = {
        status: 200,
        body: {
          task: 'transcribe',
          language: 'english',
          duration,
          text: segments.map((s) => s.text).join(' '),
          segments,
        },
      };
    },
    /** From now on, fail with this status. */
    fail(status: number, message = 'stand-in failure') {
      answer = { status, body: { error: { message } } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TranscriptionServer = Awaited<ReturnType<typeof startTranscriptionServer>>;
