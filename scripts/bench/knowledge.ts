import type pg from 'pg';
import { log } from './lib.ts';

/**
 * The knowledge part of `npm run bench:search`: how long extraction of the loaded meetings takes
 * in the background, then the latency of every route that reads extracted knowledge over the
 * same 1,000-meeting organization (the worst case: one organization holds everything, and every
 * meeting is dated today, so the daily summary covers them all).
 */

export const KNOWLEDGE_HEADING = '## Knowledge';

type Stats = { p50: number; p95: number; p99: number; max: number; count: number };

/** Waits until no video's knowledge is pending; returns the seconds it took and the statuses. */
export async function waitForExtraction(admin: pg.Client, started: number, stopIfInterrupted: () => void) {
  for (;;) {
    stopIfInterrupted();
    const { rows } = await admin.query<{ status: string; videos: number }>(
      'select status, count(*)::int as videos from video_knowledge group by status order by status',
    );
    const pending = rows.find((row) => row.status === 'pending')?.videos ?? 0;
    if (pending === 0) {
      return {
        seconds: (performance.now() - started) / 1000,
        statuses: Object.fromEntries(rows.map((row) => [row.status, row.videos])),
      };
    }
    log(`extraction: ${pending} meetings still pending`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

type Call = { label: string; method: 'GET' | 'POST'; url: string; body?: unknown; status: number };

/** The knowledge routes, with ids taken from the loaded organization. */
export async function knowledgeCalls(admin: pg.Client, day: string): Promise<Call[]> {
  const { rows: topics } = await admin.query<{ id: string }>(
    `select topic_id as id from video_topics group by topic_id order by count(*) desc limit 1`,
  );
  const { rows: videos } = await admin.query<{ id: string }>(
    `select video_id as id from video_knowledge where status = 'ready' order by video_id limit 1`,
  );
  const topicId = topics[0]?.id;
  const videoId = videos[0]?.id;
  if (!topicId || !videoId) throw new Error('extraction produced no topics or no ready video');
  return [
    { label: '`GET /topics`', method: 'GET', url: '/topics', status: 200 },
    {
      label: '`GET /videos/{id}/knowledge`',
      method: 'GET',
      url: `/videos/${videoId}/knowledge`,
      status: 200,
    },
    { label: '`GET /ai/gaps`', method: 'GET', url: '/ai/gaps', status: 200 },
    { label: '`GET /ai/gaps/conflicts`', method: 'GET', url: '/ai/gaps/conflicts', status: 200 },
    {
      label: '`GET /ai/insights/trends?period=90d`',
      method: 'GET',
      url: '/ai/insights/trends?period=90d',
      status: 200,
    },
    {
      label: '`GET /ai/insights/recommendations`',
      method: 'GET',
      url: '/ai/insights/recommendations',
      status: 200,
    },
    { label: '`GET /ai/insights`', method: 'GET', url: '/ai/insights', status: 200 },
    {
      label: '`GET /ai/summaries/daily` (1,000 meetings that day)',
      method: 'GET',
      url: `/ai/summaries/daily?date=${day}`,
      status: 200,
    },
    {
      label: '`GET /ai/summaries/topic/{id}` (the most common topic)',
      method: 'GET',
      url: `/ai/summaries/topic/${topicId}`,
      status: 200,
    },
    {
      label: '`POST /ai/summaries/meeting-prep` (that topic)',
      method: 'POST',
      url: '/ai/summaries/meeting-prep',
      body: { topicIds: [topicId] },
      status: 201,
    },
    {
      label: '`POST /ai/qa` "What did we decide?" (a list of stored decisions)',
      method: 'POST',
      url: '/ai/qa',
      body: { question: 'What did we decide?' },
      status: 201,
    },
    {
      label: '`POST /ai/qa` "What\'s the status of the remote control?" (stored items that name it)',
      method: 'POST',
      url: '/ai/qa',
      body: { question: "What's the status of the remote control?" },
      status: 201,
    },
  ];
}

/** Times each call `requests` times, one at a time (after one unrecorded call). */
export async function timeCalls(
  baseUrl: string,
  headers: Record<string, string>,
  calls: Call[],
  requests: number,
  stats: (samples: number[]) => Stats,
) {
  const results: Array<{ label: string; stats: Stats }> = [];
  for (const call of calls) {
    const samples: number[] = [];
    for (let made = -1; made < requests; made++) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}${call.url}`, {
        method: call.method,
        headers: { ...headers, ...(call.body ? { 'content-type': 'application/json' } : {}) },
        ...(call.body ? { body: JSON.stringify(call.body) } : {}),
      });
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== call.status)
        throw new Error(`${call.method} ${call.url} answered ${response.status}: ${body.slice(0, 300)}`);
      if (made >= 0) samples.push(elapsed);
    }
    log(`timed ${call.label}`);
    results.push({ label: call.label, stats: stats(samples) });
  }
  return results;
}

export function knowledgeSection(input: {
  meetings: number;
  extraction: { seconds: number; statuses: Record<string, number> };
  results: Array<{ label: string; stats: Stats }>;
}): string {
  const ms = (value: number) => value.toFixed(1);
  const { extraction } = input;
  const statuses = Object.entries(extraction.statuses)
    .map(([status, videos]) => `${videos.toLocaleString('en-US')} ${status}`)
    .join(', ');
  return [
    KNOWLEDGE_HEADING,
    '',
    'Reproduce with `npm run bench:search` (the same run and corpus as the search figures above).',
    '',
    `Extraction: the ${input.meetings.toLocaleString('en-US')} meetings were extracted by the background job ` +
      `(local extractor, one job at a time per instance) in ${extraction.seconds.toFixed(0)} s after loading ` +
      `finished (${statuses}). Then each route below was called one at a time over HTTP, as the same member, ` +
      'in the organization that holds all the meetings — all dated the same day.',
    '',
    '| Route | p50 ms | p95 ms | p99 ms | max ms | calls |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...input.results.map(
      ({ label, stats }) =>
        `| ${label} | ${ms(stats.p50)} | ${ms(stats.p95)} | ${ms(stats.p99)} | ${ms(stats.max)} | ${stats.count} |`,
    ),
    '',
  ].join('\n');
}
