import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { freePort } from './helpers/ports.ts';
import {
  isAlive,
  readPidFile,
  type ServiceProcess,
  useProcessSandbox,
  waitForExit,
  waitForHttp,
  waitUntilGone,
} from './helpers/process.ts';

/**
 * Crash safety: writes the service acknowledged (answered 2xx) survive a kill -9 and a restart on
 * the same DATA_DIR. The real service runs on the embedded cluster; a few workers write over HTTP
 * (videos with and without a transcript, comments, title changes: rows in several tables, each
 * request one transaction) until something is killed mid-load. After the restart every
 * acknowledged write must read back, and nothing else may have landed but the writes that were
 * in flight at the kill, each whole or not at all.
 */

const TEST_TIMEOUT = 90_000;
/** Concurrent writers: enough to keep requests in flight at any moment, few enough for a 2-CPU machine. */
const WORKERS = 6;
/** The kill comes after this many acknowledged writes, or after LOAD_MAX_MS, whichever is first. */
const ACKNOWLEDGED_BEFORE_KILL = 300;
const LOAD_MAX_MS = 3000;
/**
 * A kill means something only on a busy server, so the load runs past LOAD_MAX_MS until this many
 * writes were acknowledged: a machine loaded by other work gets there later, not never.
 */
const BUSY_ACKNOWLEDGED = 50;
const BUSY_MAX_MS = 30_000;
/** A request the crash left hanging must not stall the test; the kill itself fails them at once. */
const REQUEST_TIMEOUT_MS = 15_000;

const sandbox = useProcessSandbox();

type Instance = { service: ServiceProcess; port: number; pgPort: number; dataDir: string; baseUrl: string };

async function startHealthy(options: { dataDir?: string; port?: number; pgPort?: number } = {}) {
  const dataDir = options.dataDir ?? sandbox.dataDir();
  const port = options.port ?? (await freePort());
  const pgPort = options.pgPort ?? (await freePort());
  const service = sandbox.start({
    PORT: String(port),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    // The load is hundreds of requests a second on one credential; the default limit is 600 a minute.
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${baseUrl}/health`);
  return { service, port, pgPort, dataDir, baseUrl } satisfies Instance;
}

const clusterDir = (dataDir: string) => path.join(dataDir, 'postgres');

function postmasterPid(dataDir: string): number {
  const pid = readPidFile(path.join(clusterDir(dataDir), 'postmaster.pid'));
  if (!pid) throw new Error(`no postmaster.pid in ${clusterDir(dataDir)}`);
  return pid;
}

type Reply<Body> = { status: number; body: Body };

/** One JSON request to the service; rejects when no answer arrives (connection refused or reset). */
async function request<Body>(
  baseUrl: string,
  token: string | undefined,
  method: string,
  url: string,
  payload?: unknown,
): Promise<Reply<Body>> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${url}`, {
    method,
    headers,
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

type Account = { token: string; organizationId: string };

async function signUp(baseUrl: string): Promise<Account> {
  const { status, body } = await request<{
    data: { user: { defaultOrganizationId: string }; session: { sessionId: string } };
  }>(baseUrl, undefined, 'POST', '/auth/sign-up', {
    email: 'crash-safety@example.com',
    name: 'Crash Safety',
    password: 'correct horse battery staple',
  });
  expect(status, JSON.stringify(body)).toBe(201);
  return { token: body.data.session.sessionId, organizationId: body.data.user.defaultOrganizationId };
}

// --- The write load -------------------------------------------------------------------------------

/** Two labelled turns: stored as the video's text and as two rows of its transcript segments. */
const transcriptTurns = (label: string) => [
  { speaker: 'Alice', text: `First turn of ${label}.` },
  { speaker: 'Bob', text: `Second turn of ${label}.` },
];
const transcriptText = (label: string) =>
  transcriptTurns(label)
    .map((turn) => `${turn.speaker}: ${turn.text}`)
    .join('\n');

/** Every write carries a label unique in the run (worker and step), so its effect can be recognised. */
type Write =
  | { kind: 'create-video'; label: string; title: string; transcript: string | null }
  | { kind: 'comment'; label: string; videoId: string; body: string }
  | { kind: 'rename'; label: string; videoId: string; title: string };

type AcknowledgedVideo = {
  /** The title of the last acknowledged write to it (the creation or a rename). */
  title: string;
  /** The label of the create, whose transcript (if any) is transcriptText(label). */
  label: string;
  hasTranscript: boolean;
  /** Acknowledged comments: id → body. */
  comments: Map<string, string>;
};

/**
 * The client's record of the load: what the service acknowledged, and the writes whose outcome is
 * unknown because their answer never came (or was an error) once the kill had happened.
 */
type Ledger = {
  videos: Map<string, AcknowledgedVideo>;
  acknowledged: { 'create-video': number; comment: number; rename: number };
  inDoubt: Write[];
  /** Writes that failed before the kill: the load itself is broken, and the test must say so. */
  failedBeforeKill: string[];
};

const acknowledgedTotal = (ledger: Ledger) =>
  ledger.acknowledged['create-video'] + ledger.acknowledged.comment + ledger.acknowledged.rename;

type Load = {
  ledger: Ledger;
  /** Requests sent whose answer has not arrived yet. */
  inFlight(): number;
  /** From now on no worker sends anything: call it right before the kill. */
  stop(): void;
  /** Resolves when every worker has its last answer (or failure). */
  finished: Promise<void>;
};

/**
 * Starts WORKERS writers. Each writes only to the videos it created itself and waits for each answer
 * before the next request, so the writes to one video are committed in the order they were sent:
 * the last acknowledged rename is the title, unless the worker's one in-flight write was a later
 * rename. A worker stops at its first failure; after the kill that write is in doubt.
 */
function startWriteLoad(baseUrl: string, account: Account): Load {
  const ledger: Ledger = {
    videos: new Map(),
    acknowledged: { 'create-video': 0, comment: 0, rename: 0 },
    inDoubt: [],
    failedBeforeKill: [],
  };
  let stopped = false;
  let inFlight = 0;

  function nextWrite(worker: number, step: number, ownVideos: string[]): Write {
    const label = `w${worker}.${step}`;
    const target = ownVideos[Math.floor(Math.random() * ownVideos.length)];
    // Creates, comments and renames in turn; a create whenever there is nothing to write to yet.
    const kind =
      target === undefined ? 'create-video' : (['create-video', 'comment', 'rename'] as const)[step % 3];
    if (kind === 'comment' && target) return { kind, label, videoId: target, body: `Comment ${label}` };
    if (kind === 'rename' && target) return { kind, label, videoId: target, title: `Renamed ${label}` };
    // Every other video has a transcript: that create also writes the transcript's segments.
    const transcript = step % 2 === 0 ? transcriptText(label) : null;
    return { kind: 'create-video', label, title: `Video ${label}`, transcript };
  }

  function send(write: Write) {
    switch (write.kind) {
      case 'create-video':
        return request<{ id: string }>(baseUrl, account.token, 'POST', '/videos', {
          organizationId: account.organizationId,
          title: write.title,
          duration: '12:34',
          transcript: write.transcript,
        });
      case 'comment':
        return request<{ id: string }>(baseUrl, account.token, 'POST', `/videos/${write.videoId}/comments`, {
          body: write.body,
        });
      case 'rename':
        return request<{ id: string }>(baseUrl, account.token, 'PATCH', `/videos/${write.videoId}`, {
          title: write.title,
        });
    }
  }

  function acknowledge(write: Write, id: string) {
    ledger.acknowledged[write.kind]++;
    if (write.kind === 'create-video') {
      ledger.videos.set(id, {
        title: write.title,
        label: write.label,
        hasTranscript: write.transcript !== null,
        comments: new Map(),
      });
      return;
    }
    const video = ledger.videos.get(write.videoId);
    if (!video) throw new Error(`${write.label} wrote to a video that was never acknowledged`);
    if (write.kind === 'comment') video.comments.set(id, write.body);
    else video.title = write.title;
  }

  async function worker(index: number) {
    const ownVideos: string[] = [];
    for (let step = 0; !stopped; step++) {
      const write = nextWrite(index, step, ownVideos);
      inFlight++;
      let outcome: Reply<{ id: string }> | Error;
      try {
        outcome = await send(write);
      } catch (error) {
        outcome = error as Error;
      } finally {
        inFlight--;
      }
      if (!(outcome instanceof Error) && outcome.status >= 200 && outcome.status < 300) {
        acknowledge(write, outcome.body.id);
        if (write.kind === 'create-video') ownVideos.push(outcome.body.id);
        continue;
      }
      if (stopped) {
        ledger.inDoubt.push(write);
      } else {
        const detail =
          outcome instanceof Error ? outcome.message : `${outcome.status} ${JSON.stringify(outcome.body)}`;
        ledger.failedBeforeKill.push(`${write.kind} ${write.label}: ${detail}`);
      }
      return;
    }
  }

  const finished = Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index))).then(() => {});
  return {
    ledger,
    inFlight: () => inFlight,
    stop: () => {
      stopped = true;
    },
    finished,
  };
}

// --- Reading it back ------------------------------------------------------------------------------

type VideoBody = { id: string; title: string; transcript: string | null };
type TranscriptBody = { text: string | null; segments: Array<{ speaker: string | null; text: string }> };
type Page<Item> = { data: Item[]; pagination: { total: number; totalPages: number } };

/** Every page of a list endpoint (the pages are stable: nothing writes while the test reads). */
async function readAll<Item>(baseUrl: string, token: string, url: string) {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const separator = url.includes('?') ? '&' : '?';
    const { status, body } = await request<Page<Item>>(
      baseUrl,
      token,
      'GET',
      `${url}${separator}limit=100&page=${page}`,
    );
    expect(status, `GET ${url}: ${JSON.stringify(body)}`).toBe(200);
    items.push(...body.data);
    if (page >= body.pagination.totalPages) return { items, total: body.pagination.total };
  }
}

/** A video's transcript is all or nothing: its text and its segments, or neither. */
async function expectWholeTranscript(baseUrl: string, token: string, videoId: string, label: string | null) {
  const { status, body } = await request<TranscriptBody>(
    baseUrl,
    token,
    'GET',
    `/videos/${videoId}/transcript`,
  );
  expect(status, JSON.stringify(body)).toBe(200);
  if (label === null) {
    expect(body).toMatchObject({ text: null, segments: [] });
    return;
  }
  expect(body.text).toBe(transcriptText(label));
  expect(body.segments.map(({ speaker, text }) => ({ speaker, text }))).toEqual(transcriptTurns(label));
}

/**
 * Checks the restarted service against the ledger: every acknowledged write is there, and the only
 * other changes are in-doubt writes, each applied whole. Returns how many in-doubt writes landed.
 */
async function verifyAgainstLedger(baseUrl: string, account: Account, ledger: Ledger) {
  const { token, organizationId } = account;
  const inDoubtCreates = ledger.inDoubt.filter((write) => write.kind === 'create-video');
  let landedInDoubt = 0;

  // The list holds the acknowledged videos, plus any in-doubt creates that landed: nothing else.
  const { items: listed, total } = await readAll<{ id: string; title: string }>(
    baseUrl,
    token,
    `/videos?organizationId=${organizationId}`,
  );
  expect(total).toBe(listed.length);
  expect(new Set(listed.map((video) => video.id)).size).toBe(total);
  expect(total).toBeGreaterThanOrEqual(ledger.videos.size);
  expect(total).toBeLessThanOrEqual(ledger.videos.size + inDoubtCreates.length);
  expect(listed.map((video) => video.id)).toEqual(expect.arrayContaining([...ledger.videos.keys()]));
  const landedCreates = listed.filter((video) => !ledger.videos.has(video.id));
  for (const video of landedCreates) {
    const create = inDoubtCreates.find((write) => write.title === video.title);
    expect(create, `video ${video.id} "${video.title}" was never written`).toBeDefined();
    await expectWholeTranscript(baseUrl, token, video.id, create?.transcript ? create.label : null);
  }
  landedInDoubt += landedCreates.length;

  for (const [id, acknowledged] of ledger.videos) {
    // The title is the last acknowledged one, or that of the worker's in-flight rename of this video.
    const inDoubtRename = ledger.inDoubt.find((write) => write.kind === 'rename' && write.videoId === id);
    const { status, body } = await request<VideoBody>(baseUrl, token, 'GET', `/videos/${id}`);
    expect(status, `GET /videos/${id}: ${JSON.stringify(body)}`).toBe(200);
    const allowedTitles = [acknowledged.title];
    if (inDoubtRename?.kind === 'rename') allowedTitles.push(inDoubtRename.title);
    expect(allowedTitles, `title of video ${id}`).toContain(body.title);
    if (body.title !== acknowledged.title) landedInDoubt++;
    await expectWholeTranscript(baseUrl, token, id, acknowledged.hasTranscript ? acknowledged.label : null);

    // Every acknowledged comment is listed; the one other allowed is the in-flight comment on it.
    const { items: comments } = await readAll<{ id: string; body: string }>(
      baseUrl,
      token,
      `/videos/${id}/comments`,
    );
    const listedComments = new Map(comments.map((comment) => [comment.id, comment.body]));
    for (const [commentId, text] of acknowledged.comments) {
      expect(listedComments.get(commentId), `comment ${commentId} on video ${id}`).toBe(text);
    }
    const extra = comments.filter((comment) => !acknowledged.comments.has(comment.id));
    const inDoubtBodies = ledger.inDoubt.flatMap((write) =>
      write.kind === 'comment' && write.videoId === id ? [write.body] : [],
    );
    expect(extra.length).toBeLessThanOrEqual(inDoubtBodies.length);
    for (const comment of extra)
      expect(inDoubtBodies, `comment ${comment.id} on video ${id}`).toContain(comment.body);
    landedInDoubt += extra.length;
  }
  return { landedInDoubt };
}

// --- The crashes ----------------------------------------------------------------------------------

type Crash = {
  name: string;
  /** Kills what the case kills; returns when the killed processes are gone. */
  kill(instance: Instance): Promise<void>;
  /** Whether PostgreSQL itself died, so the restart must replay its WAL (crash recovery). */
  postgresCrashed: boolean;
};

const crashes: Crash[] = [
  {
    name: 'the service process',
    postgresCrashed: false,
    async kill({ service }) {
      service.child.kill('SIGKILL');
      expect(await waitForExit(service)).toEqual({ code: null, signal: 'SIGKILL' });
    },
  },
  {
    name: 'the PostgreSQL postmaster',
    postgresCrashed: true,
    async kill({ service, dataDir, baseUrl }) {
      const postmaster = postmasterPid(dataDir);
      process.kill(postmaster, 'SIGKILL');
      expect(await waitUntilGone(postmaster, 5000)).toBe(true);
      // Without its database the service stays up — the connections it held mid-transaction fail
      // their requests, not the process — and says it is not ready; then it is stopped, as an
      // operator would.
      await sleep(500);
      expect(service.hasExited(), service.output()).toBe(false);
      const ready = await request(baseUrl, undefined, 'GET', '/health/ready');
      expect(ready.status).toBe(503);
      service.child.kill('SIGTERM');
      await waitForExit(service);
    },
  },
  {
    name: 'the service and the postmaster together',
    postgresCrashed: true,
    async kill({ service, dataDir }) {
      const postmaster = postmasterPid(dataDir);
      service.child.kill('SIGKILL');
      process.kill(postmaster, 'SIGKILL');
      expect(await waitForExit(service)).toEqual({ code: null, signal: 'SIGKILL' });
      expect(await waitUntilGone(postmaster, 5000)).toBe(true);
    },
  },
];

describe('crash safety', { timeout: TEST_TIMEOUT }, () => {
  it.each(crashes)('acknowledged writes survive a kill -9 of $name and a restart', async (crash) => {
    const first = await startHealthy();
    const account = await signUp(first.baseUrl);

    const load = startWriteLoad(first.baseUrl, account);
    const loadStarted = Date.now();
    const keepLoading = () => {
      const acknowledged = acknowledgedTotal(load.ledger);
      const elapsed = Date.now() - loadStarted;
      if (acknowledged <= BUSY_ACKNOWLEDGED) return elapsed < BUSY_MAX_MS;
      return acknowledged < ACKNOWLEDGED_BEFORE_KILL && elapsed < LOAD_MAX_MS;
    };
    while (keepLoading()) {
      if (load.ledger.failedBeforeKill.length > 0) break;
      await sleep(10);
    }
    load.stop();
    const loadMs = Date.now() - loadStarted;
    const inFlightAtKill = load.inFlight();
    const crashedPostmaster = postmasterPid(first.dataDir);
    await crash.kill(first);
    await load.finished;
    const { ledger } = load;
    expect(ledger.failedBeforeKill).toEqual([]);
    // The test means something only if it killed a busy server.
    expect(acknowledgedTotal(ledger)).toBeGreaterThan(BUSY_ACKNOWLEDGED);
    expect(inFlightAtKill).toBeGreaterThan(0);
    // A worker has one request at a time, and only those in flight at the kill can be in doubt.
    expect(ledger.inDoubt.length).toBeLessThanOrEqual(inFlightAtKill);
    // postmaster.pid is left behind: naming a dead process, or the orphaned cluster when only the service died.
    expect(readPidFile(path.join(clusterDir(first.dataDir), 'postmaster.pid'))).toBe(crashedPostmaster);

    const second = await startHealthy({ dataDir: first.dataDir, port: first.port, pgPort: first.pgPort });
    const ready = await request(second.baseUrl, undefined, 'GET', '/health/ready');
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(second.service.stdout()).not.toContain('initialising a new PostgreSQL cluster');
    const postgresLog = readFileSync(path.join(first.dataDir, 'postgres.log'), 'utf8');
    if (crash.postgresCrashed) {
      // The stale postmaster.pid named a dead process: PostgreSQL took it over and replayed its WAL.
      expect(postgresLog).toContain(
        'database system was not properly shut down; automatic recovery in progress',
      );
    } else {
      // The orphaned cluster was stopped (a clean shutdown) before the new one started.
      expect(second.service.stdout()).toContain(
        `stopping PostgreSQL (pid ${crashedPostmaster}) left running by a previous instance`,
      );
    }

    // The session token was an acknowledged write too: the reads below use it.
    const { landedInDoubt } = await verifyAgainstLedger(second.baseUrl, account, ledger);
    console.log(
      `crash-safety, kill -9 of ${crash.name}: ${acknowledgedTotal(ledger)} writes acknowledged ` +
        `(${JSON.stringify(ledger.acknowledged)}) in ${loadMs} ms; ${inFlightAtKill} in flight at the kill, ` +
        `${ledger.inDoubt.length} in doubt, ${landedInDoubt} of them landed`,
    );

    const restartedPostmaster = postmasterPid(second.dataDir);
    second.service.child.kill('SIGTERM');
    expect(await waitForExit(second.service), second.service.output()).toEqual({ code: 0, signal: null });
    expect(isAlive(restartedPostmaster)).toBe(false);
  });
});
