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
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_EXCERPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
          kept += chunk.length;
        });
        response.on('end', () => {
          if (status >= 200 && status < 300) return resolve({ ok: true, status });
          // PostgreSQL text cannot hold NUL, and the excerpt is stored to explain the failure.
          const excerpt = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '').trim();
          resolve({ ok: false, status, error: `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}` });
        });
        response.on('error', (error) => resolve({ ok: false, status, error: error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (error) => resolve({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}
