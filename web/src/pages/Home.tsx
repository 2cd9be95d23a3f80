import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { MomentItems } from '../components/MomentItems.tsx';
import { QueryView } from '../components/States.tsx';
import { VideoCard } from '../components/VideoCard.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { formatDateTime } from '../lib/time.ts';
import { ContinueWatching, Recommendations } from './Insights.tsx';

function RecentMeetings({ organizationId }: { organizationId: string }) {
  const videos = useQuery({
    queryKey: ['videos', organizationId, 'recent'],
    queryFn: async () =>
      expectData(
        await api.GET('/videos', { params: { query: { organizationId, limit: 6, sort: '-createdAt' } } }),
      ).data,
  });
  return (
    <section className="panel" aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recent meetings</h2>
      <QueryView
        query={videos}
        isEmpty={(data) => data.length === 0}
        empty={
          <>
            No meetings yet. <Link to="/library">Add your first one</Link>.
          </>
        }
      >
        {(data) => (
          <ul className="cards">
            {data.map((video) => (
              <VideoCard key={video.id} video={video} />
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function TodaysDigest({ organizationId }: { organizationId: string }) {
  const digest = useQuery({
    queryKey: ['daily', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/ai/summaries/daily', { params: { query: { organizationId } } })),
  });
  return (
    <section className="panel" aria-labelledby="digest-heading">
      <h2 id="digest-heading">Today</h2>
      <QueryView query={digest}>
        {(data) => (
          <>
            <p>{data.summary}</p>
            <MomentItems title="Decisions" items={data.decisions} />
            <MomentItems title="Open action items" items={data.actionItems} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function UnreadNotifications() {
  const notifications = useQuery({
    queryKey: ['notifications', 'list'],
    queryFn: async () =>
      expectData(await api.GET('/notifications', { params: { query: { unread: 'true', limit: 5 } } })).data,
  });
  return (
    <section className="panel" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Unread notifications</h2>
      <QueryView query={notifications} isEmpty={(data) => data.length === 0} empty="You are all caught up.">
        {(data) => (
          <ul>
            {data.map((notification) => (
              <li key={notification.id}>
                <strong>{notification.title}</strong>{' '}
                <span className="muted">{formatDateTime(notification.createdAt)}</span>
                <br />
                {notification.body}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

export function Home() {
  const { user, organization } = useCurrent();
  return (
    <div className="page">
      <header className="page-header">
        <h1>Welcome, {user.name}</h1>
        <p className="meta">{organization.name}</p>
      </header>
      <div className="columns">
        <div>
          <ContinueWatching organizationId={organization.id} />
          <RecentMeetings organizationId={organization.id} />
        </div>
        <div>
          <TodaysDigest organizationId={organization.id} />
          <Recommendations organizationId={organization.id} />
          <UnreadNotifications />
        </div>
      </div>
    </div>
  );
}
