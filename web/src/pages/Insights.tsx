import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { InlineSelect } from '../components/Form.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData, type Schemas } from '../lib/api.ts';
import { clockTime, formatDate, momentLink } from '../lib/time.ts';

type Period = Schemas['InsightTrends']['period'];

const change = (percent: number | null) =>
  percent === null ? 'new' : `${percent > 0 ? '+' : ''}${Math.round(percent)}%`;

/** One small bar chart per topic: meetings per bucket of the period. */
function Sparkbars({ buckets, label }: { buckets: Schemas['TopicTrend']['buckets']; label: string }) {
  const highest = Math.max(1, ...buckets.map((bucket) => bucket.count));
  return (
    <span className="sparkbars" role="img" aria-label={label}>
      {buckets.map((bucket) => (
        <span
          key={bucket.start}
          className="sparkbar"
          style={{ height: `${Math.max(8, (bucket.count / highest) * 100)}%` }}
          title={`${formatDate(bucket.start)}: ${bucket.count}`}
        />
      ))}
    </span>
  );
}

export function Trends({ organizationId }: { organizationId: string }) {
  const [period, setPeriod] = useState<Period>('30d');
  const trends = useQuery({
    queryKey: ['trends', organizationId, period],
    queryFn: async () =>
      expectData(await api.GET('/ai/insights/trends', { params: { query: { organizationId, period } } })),
  });
  return (
    <section className="panel" aria-labelledby="trends-heading">
      <div className="panel-header">
        <h2 id="trends-heading">Trends</h2>
        <InlineSelect label="Period" value={period} onChange={(value) => setPeriod(value as Period)}>
          <option value="7d">7 days</option>
          <option value="30d">30 days</option>
          <option value="90d">90 days</option>
        </InlineSelect>
      </div>
      <QueryView query={trends}>
        {(data) => (
          <>
            <p>
              {data.totals.videos.current} meetings ({change(data.totals.videos.changePercent)}),{' '}
              {data.totals.decisions.current} decisions ({change(data.totals.decisions.changePercent)}),{' '}
              {data.totals.questionsAsked.current} questions asked (
              {change(data.totals.questionsAsked.changePercent)}) against the {period} before.
            </p>
            {data.topics.length === 0 ? (
              <p className="muted">No topics discussed in this period.</p>
            ) : (
              <ul className="trends">
                {data.topics.map((trend) => (
                  <li key={trend.topic.id}>
                    <Link to={`/search?q=${encodeURIComponent(trend.topic.name)}`}>{trend.topic.name}</Link>
                    <Sparkbars
                      buckets={trend.buckets}
                      label={`${trend.topic.name}: meetings over the period`}
                    />
                    <span className="muted">
                      {trend.current} meetings ({change(trend.changePercent)})
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}

/**
 * The viewer's recommendations, asked once for the home page: the playlists to resume feed
 * "Continue watching", the rest "For you".
 */
function useRecommendations(organizationId: string) {
  return useQuery({
    queryKey: ['recommendations', organizationId],
    queryFn: async () =>
      expectData(
        await api.GET('/ai/insights/recommendations', { params: { query: { organizationId, limit: 20 } } }),
      ).data,
  });
}

/** Playlists the viewer has started and not finished, with where they left off. */
export function ContinueWatching({ organizationId }: { organizationId: string }) {
  const recommendations = useRecommendations(organizationId);
  const playlists = (recommendations.data ?? []).flatMap((item) =>
    item.collection ? [item.collection] : [],
  );
  if (playlists.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="continue-heading">
      <h2 id="continue-heading">Continue watching</h2>
      <ul>
        {playlists.map((playlist) => (
          <li key={playlist.id}>
            <Link to={`/collections/${playlist.id}`}>{playlist.name}</Link>{' '}
            <span className="muted">
              {playlist.completed} of {playlist.total} watched
            </span>
            {playlist.lastVideoId && (
              <>
                {' · '}
                <Link to={momentLink(playlist.lastVideoId, playlist.lastPosition ?? 0)}>
                  where you left off
                </Link>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Recommendations({ organizationId }: { organizationId: string }) {
  const all = useRecommendations(organizationId);
  // Playlists to resume have their own panel.
  const recommendations = { ...all, data: all.data?.filter((item) => !item.collection).slice(0, 8) };
  return (
    <section className="panel" aria-labelledby="recommendations-heading">
      <h2 id="recommendations-heading">For you</h2>
      <QueryView
        query={recommendations}
        isEmpty={(data) => data.length === 0}
        empty="Nothing to suggest yet."
      >
        {(data) => (
          <ul>
            {data.map((item) => (
              <li key={`${item.type}:${item.video?.id ?? item.collection?.id ?? item.gap?.text}`}>
                {item.video && <Link to={`/videos/${item.video.id}`}>{item.video.title}</Link>}
                {item.collection && (
                  <Link to={`/collections/${item.collection.id}`}>{item.collection.name}</Link>
                )}
                {item.gap && (
                  <Link to={momentLink(item.gap.videoId, item.gap.start)}>
                    “{item.gap.text}” ({item.gap.videoTitle}, {clockTime(item.gap.start)})
                  </Link>
                )}{' '}
                <span className="muted">{item.reason}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
