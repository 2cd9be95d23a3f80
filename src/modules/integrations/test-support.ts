import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type ReceivedRequest = {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: unknown;
};

/** How the receiver answers a request: a status, after an optional delay (longer than the timeout = no answer). */
export type Answer = { status: number; delayMs?: number; body?: string };

/**
 * A real HTTP server on loopback that records every request and answers from a script (then 200).
 * It stands for a customer's webhook endpoint or Slack.
 */
export async function startReceiver() {
  const received: ReceivedRequest[] = [];
  const script: Answer[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      received.push({ path: request.url ?? '/', headers: request.headers, body, json });
      const answer = script.shift() ?? { status: 200 };
      if (answer.delayMs) await sleep(answer.delayMs);
      if (response.destroyed) return;
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Forgets what arrived and what was scripted (between tests). */
    reset: () => {
      received.length = 0;
      script.length = 0;
    },
    /** Answers the next requests with these, in order. */
    answerNext: (...answers: Answer[]) => script.push(...answers),
    /** Waits until `count` requests have arrived (15 s at most). */
    async waitFor(count: number): Promise<ReceivedRequest[]> {
      const deadline = Date.now() + 15_000;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await sleep(20);
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
