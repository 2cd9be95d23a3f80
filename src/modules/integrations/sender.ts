import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { assertPublicHost, publicOnlyLookup } from './addresses.ts';

export type SendOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** How much of a receiver's answer is kept to explain a failure. */
const RESPONSE_EXCERPT_BYTES = 512;

/**
 * POSTs a JSON body and reports how the receiver answered: 2xx is a delivery; any other status,
 * a timeout, a refused connection or a refused address is a failure to retry. Redirects are not
 * followed (a redirect could lead to a private address).
 */
export async function postJson(
  target: string,
  body: string,
  options: { headers: Record<string, string>; timeoutMs: number; allowPrivate: boolean },
): Promise<SendOutcome> {
  const url = new URL(target);
  try {
    // Node connects to an IP literal without a lookup, so the lookup's check would not see it.
    if (!options.allowPrivate && isIP(url.hostname.replace(/^\[(.*)\]$/, '$1'))) await assertPublicHost(url);
  } catch (error) {
    return { ok: false, status: null, error: (error as Error).message };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(outcome);
    };
    // One deadline for the whole exchange: a receiver that trickles bytes cannot hold a sweep.
    const deadline = setTimeout(
      () => finish({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body).toString(),
          'user-agent': 'KnowledgeHub-Webhooks/1.0',
          ...options.headers,
        },
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The status is the answer; a 2xx body is not read at all.
        if (status >= 200 && status < 300) return finish({ ok: true, status });
        const chunks: Buffer[] = [];
        let kept = 0;
        const explain = () => {
          // PostgreSQL text cannot hold NUL, and the excerpt is stored to explain the failure.
          const excerpt = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '').trim();
          finish({ ok: false, status, error: `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}` });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
          kept += chunk.length;
          if (kept >= RESPONSE_EXCERPT_BYTES) explain();
        });
        response.on('end', explain);
        response.on('error', explain);
      },
    );
    request.on('error', (error) => finish({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}
