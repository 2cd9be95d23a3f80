import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  apiFor,
  autocannonVersion,
  hasExited,
  log,
  measure,
  parseSettings,
  type Row,
  ratios,
  readIfExists,
  runBenchmark,
  type Settings,
  signUp,
  startBareFastify,
  startService,
  table,
  upsertSection,
} from './lib.ts';

/**
 * `npm run bench:library`: authenticated library reads. Starts the real service and bare Fastify
 * as `npm run bench` does, fills one organization with a few hundred videos and some collections
 * through the API, then loads `GET /videos/{id}`, `GET /collections` and the bare floor in turn,
 * and rewrites the `## Library reads` section of docs/benchmarks.md.
 *
 *   npm run bench:library -- --duration 5 --connections 20
 */

const SECTION_HEADING = '## Library reads';
const VIDEOS = 300;
const COLLECTIONS = 30;
const PARALLEL_WRITES = 8;

/** Runs `task(i)` for i in 0..count-1, `PARALLEL_WRITES` at a time. */
async function inParallel(count: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL_WRITES }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** A user, an organization's channel, collections and videos with short transcripts; returns what the reads need. */
async function fill(baseUrl: string) {
  const { token, organizationId } = await signUp(baseUrl, {
    email: 'library-bench@example.com',
    name: 'Bench',
  });
  const api = apiFor(baseUrl, token);
  const channel = await api<{ id: string }>('POST', '/channels', { organizationId, name: 'Benchmarks' });
  const collectionIds: string[] = [];
  await inParallel(COLLECTIONS, async (index) => {
    const collection = await api<{ id: string }>('POST', '/collections', {
      organizationId,
      name: `Collection ${index + 1}`,
      type: index % 2 === 0 ? 'playlist' : 'folder',
    });
    collectionIds.push(collection.id);
  });
  const videoIds: string[] = [];
  await inParallel(VIDEOS, async (index) => {
    const video = await api<{ id: string }>('POST', '/videos', {
      organizationId,
      channelId: channel.id,
      collectionId: collectionIds[index % COLLECTIONS],
      title: `Meeting ${index + 1}`,
      description: 'A benchmark meeting.',
      duration: '12:34',
      transcript: [
        'Alice: Let us go through the numbers for this week.',
        'Bob: Sign-ups are up, churn is flat, and the search release is on track.',
        'Alice: Good. Decision: we keep the date. Bob owns the announcement.',
      ].join('\n'),
    });
    videoIds.push(video.id);
  });
  return { token, videoId: videoIds[Math.floor(videoIds.length / 2)] as string };
}

function section(rows: Row[], bare: Row, settings: Settings, date: Date, loadBefore: number): string {
  const cpus = os.cpus();
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  const notes = rows
    .filter((row) => row.non2xx > 0 || row.errors > 0)
    .map((row) => `- ${row.target}: status codes ${JSON.stringify(row.statusCodes)}, ${row.errors} errors.`);
  return [
    SECTION_HEADING,
    '',
    `Reproduce with \`npm run bench:library\`. Measured ${date.toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, ` +
      `${memoryGiB} GiB RAM, Node ${process.version}; 1-minute load average ${loadBefore.toFixed(2)} before the first measurement.`,
    '',
    `Method: as the HTTP floor above (autocannon ${autocannonVersion}, ${settings.connections} connections, pipelining 1, ` +
      `${settings.duration} s per target after a ${settings.warmup} s warm-up, service with request logging off and ` +
      `the rate limiter counting without refusing). Before measuring, one organization gets ${VIDEOS} videos ` +
      `(each with a three-turn transcript) spread over ${COLLECTIONS} collections, created through the API. ` +
      '`GET /videos/{id}` reads one video with a session token (session lookup, rate limiter, the access check ' +
      "and the video row); `GET /collections` is the first page (20) of the caller's collections with its count.",
    '',
    table(rows),
    '',
    ratios(
      rows.filter((row) => row !== bare),
      bare,
    ),
    ...(notes.length > 0 ? ['', 'Non-2xx responses and errors:', '', ...notes] : []),
    '',
  ].join('\n');
}

const settings = parseSettings('bench:library');

await runBenchmark('bench:library', async ({ dataDir, children }) => {
  const { baseUrl } = await startService(dataDir, children);
  const { bareUrl } = await startBareFastify(children);

  log(`creating ${VIDEOS} videos and ${COLLECTIONS} collections through the API`);
  const { token, videoId } = await fill(baseUrl);
  const headers = { authorization: `Bearer ${token}` };

  const date = new Date();
  const loadBefore = os.loadavg()[0] ?? 0;
  const videoRow = await measure(
    'Service `GET /videos/{id}`',
    `${baseUrl}/videos/${videoId}`,
    settings,
    headers,
  );
  const collectionsRow = await measure(
    'Service `GET /collections`',
    `${baseUrl}/collections`,
    settings,
    headers,
  );
  const bareRow = await measure('Bare Fastify `GET /health`', bareUrl, settings);
  for (const child of children) {
    if (hasExited(child)) throw new Error(`${child.name} exited during the run:\n${child.output().trim()}`);
  }
  const rows = [videoRow, collectionsRow, bareRow];
  process.stdout.write(`\n${table(rows)}\n\n${ratios([videoRow, collectionsRow], bareRow)}\n`);
  writeFileSync(
    settings.output,
    upsertSection(
      readIfExists(settings.output),
      SECTION_HEADING,
      section(rows, bareRow, settings, date, loadBefore),
    ),
  );
  log(`wrote ${path.relative(process.cwd(), settings.output)}`);
});
