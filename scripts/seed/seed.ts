import { readFile } from 'node:fs/promises';
import type { App } from '../../src/app.ts';
import { CHANNELS, DEMO_ORGANIZATION, DEMO_USER, MEETINGS, PLAYLIST, SERIES } from './meetings.ts';
import { readQmsumDirectory } from './qmsum.ts';

const MEETINGS_DIR = new URL('./meetings/', import.meta.url);
const QMSUM_CHANNEL = {
  name: 'QMSum',
  description:
    'Meetings imported from the QMSum benchmark (product design, research and committee meetings).',
};
const WORDS_PER_MINUTE = 150;

/** What to try first, printed after seeding against the service's address (the README's walk-through has the answers). */
export const thingsToTry = (base: string, email: string, password: string) => [
  `T=$(curl -s ${base}/auth/sign-in -H 'content-type: application/json' -d '{"email":"${email}","password":"${password}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.session.sessionId')`,
  `curl -s '${base}/search?q=Northwind+renewal' -H "authorization: Bearer $T"`,
  `curl -s ${base}/ai/qa -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"question":"Why did search go down on January 14?"}'`,
  `curl -s ${base}/ai/qa -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"question":"What did we decide about search v2?"}'`,
  `curl -s ${base}/ai/qa -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"question":"Who owns the lock alert?"}'`,
  `curl -s ${base}/ai/qa -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"question":"What happened at the design review?"}'`,
  `curl -s '${base}/ai/gaps/conflicts?days=3650' -H "authorization: Bearer $T"`,
  `curl -s '${base}/ai/gaps?days=3650' -H "authorization: Bearer $T"`,
];

export type SeedOptions = {
  /** A directory of QMSum JSON meeting files to import too. */
  qmsumDir?: string | undefined;
  /** At most this many QMSum meetings. */
  qmsumLimit?: number | undefined;
  log?: (message: string) => void;
};

export type SeedResult = {
  email: string;
  password: string;
  organizationId: string;
  /** What this run created (zero everywhere on a re-run). */
  created: { channels: number; series: number; videos: number; collections: number; qmsumVideos: number };
};

type Named = { id: string; name: string };

/**
 * Loads the demo data through the HTTP API, as a client would, so that every rule applies and
 * transcripts are parsed. Everything is found by name before it is created: a re-run adds nothing.
 */
export async function seed(app: App, options: SeedOptions = {}): Promise<SeedResult> {
  const log = options.log ?? (() => {});
  const created = { channels: 0, series: 0, videos: 0, collections: 0, qmsumVideos: 0 };
  const api = await client(app);

  const organizations = await api.all<Named & { slug: string }>('/organizations');
  let organizationId = organizations.find((candidate) => candidate.slug === DEMO_ORGANIZATION.slug)?.id;
  if (!organizationId) {
    organizationId = (await api.send('POST', '/organizations', DEMO_ORGANIZATION, 201)).id;
    log(`created organization ${DEMO_ORGANIZATION.name}`);
  }
  const scoped = `organizationId=${organizationId}`;
  // A first question, search or list without an organizationId is about the demo library.
  await api.send('PATCH', '/users/me', { defaultOrganizationId: organizationId });

  const findOrCreate = async (
    list: string,
    create: string,
    body: { name: string } & Record<string, unknown>,
    count: keyof typeof created,
  ) => {
    const existing = (await api.all<Named>(`${list}?${scoped}`)).find((item) => item.name === body.name);
    if (existing) return existing.id;
    const made = await api.send<Named>('POST', create, { organizationId, ...body }, 201);
    created[count] += 1;
    return made.id;
  };

  const channelIds = new Map<string, string>();
  for (const channel of CHANNELS) {
    const { key, ...body } = channel;
    channelIds.set(key, await findOrCreate('/channels', '/channels', body, 'channels'));
  }
  const seriesId = await findOrCreate('/series', '/series', SERIES, 'series');
  const playlistId = await findOrCreate(
    '/collections',
    '/collections',
    { ...PLAYLIST, type: 'playlist' },
    'collections',
  );

  const titles = new Map(
    (await api.all<{ id: string; title: string }>(`/videos?${scoped}`)).map((video) => [
      video.title,
      video.id,
    ]),
  );
  const playlist = await api.send<{ videos: Array<{ id: string }> }>('GET', `/collections/${playlistId}`);
  const inPlaylist = new Set(playlist.videos.map((video) => video.id));

  for (const meeting of MEETINGS) {
    let videoId = titles.get(meeting.title);
    if (!videoId) {
      const transcript = await readFile(new URL(`${meeting.file}.txt`, MEETINGS_DIR), 'utf8');
      const video = await api.send<{ id: string }>(
        'POST',
        '/videos',
        {
          organizationId,
          title: meeting.title,
          description: meeting.description,
          duration: durationOf(transcript),
          transcript,
          channelId: channelIds.get(meeting.channel),
          seriesId: meeting.inSeries ? seriesId : null,
          recordedAt: meeting.recordedAt,
        },
        201,
      );
      videoId = video.id;
      created.videos += 1;
      log(`created video "${meeting.title}"`);
    }
    if (meeting.inPlaylist && !inPlaylist.has(videoId)) {
      await api.send('POST', `/collections/${playlistId}/videos`, { videoId }, 201);
    }
  }

  if (options.qmsumDir) {
    const channelId = await findOrCreate('/channels', '/channels', QMSUM_CHANNEL, 'channels');
    const meetings = await readQmsumDirectory(
      options.qmsumDir,
      options.qmsumLimit ?? Number.POSITIVE_INFINITY,
    );
    for (const meeting of meetings) {
      if (titles.has(meeting.title)) continue;
      await api.send(
        'POST',
        '/videos',
        {
          organizationId,
          channelId,
          title: meeting.title,
          duration: meeting.duration,
          transcript: meeting.transcript,
        },
        201,
      );
      created.qmsumVideos += 1;
      log(`imported ${meeting.title} (${meeting.words} words)`);
    }
  }

  return { email: DEMO_USER.email, password: DEMO_USER.password, organizationId, created };
}

/** `mm:ss` for the time the transcript takes to speak at 150 words a minute. */
function durationOf(transcript: string): string {
  const seconds = Math.round((transcript.split(/\s+/).filter(Boolean).length / WORDS_PER_MINUTE) * 60);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The demo user's API client: signs up on the first run, signs in afterwards. */
async function client(app: App) {
  const signUp = await app.inject({ method: 'POST', url: '/auth/sign-up', payload: DEMO_USER });
  const session =
    signUp.statusCode === 201
      ? signUp
      : await app.inject({
          method: 'POST',
          url: '/auth/sign-in',
          payload: { email: DEMO_USER.email, password: DEMO_USER.password },
        });
  if (session.statusCode !== 200 && session.statusCode !== 201) {
    throw new Error(`cannot sign in as ${DEMO_USER.email}: ${session.statusCode} ${session.body}`);
  }
  const headers = { authorization: `Bearer ${session.json().data.session.sessionId}` };

  async function send<T = Named>(
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: object,
    expected = 200,
  ) {
    const response = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    if (response.statusCode !== expected) {
      throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
    }
    return response.json() as T;
  }

  /** Every item of a paginated list. */
  async function all<T>(url: string): Promise<T[]> {
    const items: T[] = [];
    const separator = url.includes('?') ? '&' : '?';
    for (let page = 1; ; page++) {
      const body = await send<{ data: T[]; pagination: { totalPages: number } }>(
        'GET',
        `${url}${separator}limit=100&page=${page}`,
      );
      items.push(...body.data);
      if (page >= body.pagination.totalPages) return items;
    }
  }

  return { send, all };
}
