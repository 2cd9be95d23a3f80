import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { counted } from '../../lib/text.ts';
import type { RecommendationView } from './schemas.ts';

/**
 * Recommendations for one person in one organization: videos to watch, playlists to resume, and
 * unanswered meeting questions they could answer. Each kind is ranked by its own query (at most
 * `limit` each), then merged by score.
 */

type Caller = { organizationId: string; userId: string };

/** How much of an interest makes it count fully: three videos watched, meetings spoken in or questions. */
const FULL_INTEREST = 3;

const round = (score: number) => Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;

/**
 * The caller's topics: those of the live videos they watched (a video_viewers row of theirs), of
 * the meetings they spoke in (a speaker linked to their account), and those their own questions
 * named (every word of the topic's key among the question's stemmed words).
 */
const interestCtes = ({ organizationId, userId }: Caller): SQL => sql`
  watched as (
    select distinct v.id as video_id
    from video_viewers vv join videos v on v.id = vv.video_id
    where vv.user_id = ${userId} and v.organization_id = ${organizationId} and not v.is_deleted
  ),
  spoken as (
    select distinct v.id as video_id
    from speakers sp
    join video_speaker_stats st on st.speaker_id = sp.id
    join videos v on v.id = st.video_id
    where sp.user_id = ${userId} and sp.organization_id = ${organizationId}
      and v.organization_id = ${organizationId} and not v.is_deleted
  ),
  topic_keys as (
    select id, string_to_array(key, ' ') as words from topics where organization_id = ${organizationId}
  ),
  asked_words as (
    select string_to_array(normalized_question, ' ') as words
    from ai_questions where user_id = ${userId} and organization_id = ${organizationId}
  ),
  engaged as (
    select vt.topic_id, 'watched' as how from watched w join video_topics vt on vt.video_id = w.video_id
    union all
    select vt.topic_id, 'spoke' from spoken s join video_topics vt on vt.video_id = s.video_id
    union all
    -- Joined on the key's first word, then checked whole: comparing every question with every
    -- topic took half a second for 600 questions and 600 topics. A normalized question holds each
    -- stem once, so a pair is found once.
    select t.id, 'asked'
    from asked_words q
    cross join lateral unnest(q.words) as word
    join topic_keys t on t.words[1] = word
    where t.words <@ q.words
  ),
  interest as (
    select t.id as topic_id, t.name, t.key,
      (count(*) filter (where e.how = 'watched'))::int as watched,
      (count(*) filter (where e.how = 'spoke'))::int as spoke,
      (count(*) filter (where e.how = 'asked'))::int as asked
    from engaged e join topics t on t.id = e.topic_id
    group by t.id, t.name, t.key
  )`;

type Interest = { topic: string | null; watched: number; spoke: number; asked: number };

/** "which you watched 3 videos about and spoke about in 1 meeting". */
function interestPhrase({ watched, spoke, asked }: Interest) {
  const parts = [
    watched > 0 ? `watched ${counted(watched, 'video')} about` : null,
    spoke > 0 ? `spoke about in ${counted(spoke, 'meeting')}` : null,
    asked > 0 ? (asked === 1 ? 'asked about' : `asked ${asked} questions about`) : null,
  ].filter((part) => part !== null);
  return `which you ${parts.join(' and ')}`;
}

type VideoRow = Interest & {
  id: string;
  title: string;
  thumbnail_url: string | null;
  duration_seconds: number | null;
  channel: string | null;
  followed: boolean;
  score: number;
};

/**
 * Live videos of the organization the caller has not watched, did not make and did not speak in,
 * from channels they follow (0.5) or on their topics (up to 0.5: how central the topic is to the
 * video × how strong their interest in it is); the best topic of each names the reason.
 */
async function videosToWatch(db: Db, caller: Caller, limit: number): Promise<RecommendationView[]> {
  const { organizationId, userId } = caller;
  const { rows } = await db.execute<VideoRow>(sql`
    with ${interestCtes(caller)}
    select v.id, v.title, v.thumbnail_url, v.duration_seconds, c.name as channel,
      cf.user_id is not null as followed, best.name as topic,
      coalesce(best.watched, 0) as watched, coalesce(best.spoke, 0) as spoke, coalesce(best.asked, 0) as asked,
      (case when cf.user_id is not null then 0.5 else 0 end) + 0.5 * coalesce(best.weight, 0) as score
    from videos v
    left join channels c on c.id = v.channel_id
    left join channel_follows cf on cf.channel_id = v.channel_id and cf.user_id = ${userId}
    left join lateral (
      select i.name, i.watched, i.spoke, i.asked,
        vt.score * least(1, (i.watched + i.spoke + i.asked)::float / ${FULL_INTEREST}) as weight
      from video_topics vt join interest i on i.topic_id = vt.topic_id
      where vt.video_id = v.id
      order by weight desc, i.name
      limit 1
    ) best on true
    where v.organization_id = ${organizationId} and not v.is_deleted and v.author_id <> ${userId}
      and not exists (select 1 from video_viewers vv where vv.video_id = v.id and vv.user_id = ${userId})
      and not exists (select 1 from spoken s where s.video_id = v.id)
      and (cf.user_id is not null or best.name is not null)
    order by score desc, coalesce(v.recorded_at, v.created_at) desc, v.id
    limit ${limit}`);
  return rows.map((row) => {
    const reasons = [
      row.followed ? `New in #${row.channel}, a channel you follow` : null,
      row.topic ? `discusses ${row.topic}, ${interestPhrase(row)}` : null,
    ].filter((reason) => reason !== null);
    const reason = reasons.join('; ');
    return {
      type: 'video',
      reason: reason.charAt(0).toUpperCase() + reason.slice(1),
      score: round(row.score),
      video: {
        id: row.id,
        title: row.title,
        thumbnailUrl: row.thumbnail_url,
        durationSeconds: row.duration_seconds,
      },
    };
  });
}

type PlaylistRow = {
  id: string;
  name: string;
  last_video_id: string | null;
  last_position: number | null;
  last_listed: boolean;
  completed: number;
  total: number;
};

/**
 * Playlists the caller has progress in and has not finished, counted over their live videos as
 * the progress routes count them. Further along scores higher (0.5–0.9): closest to done first.
 */
async function playlistsToResume(db: Db, caller: Caller, limit: number): Promise<RecommendationView[]> {
  const { rows } = await db.execute<PlaylistRow>(sql`
    select c.id, c.name, p.last_video_id, p.last_position,
      coalesce(bool_or(v.id = p.last_video_id), false) as last_listed,
      count(pc.video_id)::int as completed, count(v.id)::int as total
    from playlist_progress p
    join collections c on c.id = p.collection_id
    join videos v on v.collection_id = c.id and not v.is_deleted
    left join playlist_completions pc
      on pc.collection_id = c.id and pc.user_id = p.user_id and pc.video_id = v.id
    where p.user_id = ${caller.userId} and c.organization_id = ${caller.organizationId} and c.type = 'playlist'
    group by c.id, c.name, p.last_video_id, p.last_position, p.updated_at
    having count(pc.video_id) < count(v.id)
    order by count(pc.video_id)::float / count(v.id) desc, p.updated_at desc, c.id
    limit ${limit}`);
  return rows.map((row) => ({
    type: 'playlist',
    reason:
      row.completed === 0
        ? `You started “${row.name}”: ${counted(row.total, 'video')} to go`
        : `You are ${row.completed} of ${counted(row.total, 'video')} into “${row.name}”`,
    score: round(0.5 + (0.4 * row.completed) / row.total),
    collection: {
      id: row.id,
      name: row.name,
      // As the progress routes say it: a last video that left the playlist is no place to resume.
      lastVideoId: row.last_listed ? row.last_video_id : null,
      lastPosition: row.last_listed ? row.last_position : null,
      completed: row.completed,
      total: row.total,
    },
  }));
}

type GapRow = {
  text: string;
  start: number;
  video_id: string;
  video_title: string;
  topic: string;
  watched: number;
  spoke: number;
  weight: number;
};

/**
 * Questions raised in live meetings that the meeting never answered, on a topic the caller spoke
 * about or watched: the question names the topic (its key words are in the question's subject) or
 * its meeting discusses it (weighted by how central it is there). Speaking counts double —
 * it shows knowing — and questions the caller raised themselves are left out.
 */
async function gapsToFill(db: Db, caller: Caller, limit: number): Promise<RecommendationView[]> {
  const { organizationId, userId } = caller;
  const { rows } = await db.execute<GapRow>(sql`
    with ${interestCtes(caller)},
    matches as (
      select distinct on (k.id) k.text, k.start, v.id as video_id, v.title as video_title,
        coalesce(v.recorded_at, v.created_at) as meeting_date, i.name as topic, i.watched, i.spoke,
        (case when string_to_array(i.key, ' ') <@ string_to_array(k.subject, ' ') then 1
              else 0.5 * coalesce(vt.score, 0) end)
          * least(1, (i.watched + 2 * i.spoke)::float / ${FULL_INTEREST}) as weight
      from knowledge_items k
      join videos v on v.id = k.video_id
      join interest i on i.watched + i.spoke > 0
      left join video_topics vt on vt.video_id = k.video_id and vt.topic_id = i.topic_id
      where k.organization_id = ${organizationId} and k.kind = 'question' and k.answered = false
        and v.organization_id = ${organizationId} and not v.is_deleted
        and (vt.topic_id is not null or string_to_array(i.key, ' ') <@ string_to_array(k.subject, ' '))
        and not exists (
          select 1 from speakers sp
          where sp.organization_id = ${organizationId} and sp.user_id = ${userId}
            and sp.normalized_name = lower(trim(k.speaker)))
      order by k.id, weight desc, i.name
    )
    select * from matches order by weight desc, meeting_date desc, start limit ${limit}`);
  return rows.map((row) => ({
    type: 'gap',
    reason:
      row.spoke > 0
        ? `Asked in “${row.video_title}”; you have spoken about ${row.topic}`
        : `Asked in “${row.video_title}”; you have watched ${counted(row.watched, 'video')} about ${row.topic}`,
    score: round(0.8 * row.weight),
    gap: { text: row.text, videoId: row.video_id, videoTitle: row.video_title, start: row.start },
  }));
}

/** The caller's recommendations, best first: videos, playlists and gaps merged by score. */
export async function computeRecommendations(
  db: Db,
  caller: Caller,
  limit: number,
): Promise<RecommendationView[]> {
  const kinds = await Promise.all([
    videosToWatch(db, caller, limit),
    playlistsToResume(db, caller, limit),
    gapsToFill(db, caller, limit),
  ]);
  return kinds
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
