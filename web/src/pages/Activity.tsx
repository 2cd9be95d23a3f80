import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { InlineSelect } from '../components/Form.tsx';
import { Pager } from '../components/Pager.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { formatDateTime } from '../lib/time.ts';

const TARGETS = [
  'video',
  'clip',
  'comment',
  'channel',
  'series',
  'collection',
  'organization',
  'share_link',
] as const;

/** What happened in the organization, newest first, filtered by what it happened to. */
export function Activity() {
  const { organization } = useCurrent();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1') || 1;
  const targetType = TARGETS.find((value) => value === params.get('targetType'));
  const events = useQuery({
    queryKey: ['activity', organization.id, page, targetType],
    queryFn: async () =>
      expectData(
        await api.GET('/activity', {
          params: {
            query: {
              organizationId: organization.id,
              page,
              limit: 25,
              ...(targetType ? { targetType } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <div className="page">
      <header className="page-header">
        <h1>Activity</h1>
      </header>
      <section className="panel" aria-label="Activity feed">
        <div className="filters">
          <InlineSelect
            label="About"
            value={targetType ?? ''}
            onChange={(value) => setParams(value ? { targetType: value } : {})}
          >
            <option value="">Everything</option>
            {TARGETS.map((value) => (
              <option key={value} value={value}>
                {value.replace('_', ' ')}
              </option>
            ))}
          </InlineSelect>
        </div>
        <QueryView
          query={events}
          isEmpty={(data) => data.data.length === 0}
          empty="Nothing has happened here yet."
        >
          {(data) => (
            <>
              <ol className="activity">
                {data.data.map((event) => (
                  <li key={event.id}>
                    <strong>{event.actor?.name ?? 'The service'}</strong> {event.action.replace(/[._]/g, ' ')}{' '}
                    <span className="muted">{formatDateTime(event.createdAt)}</span>
                  </li>
                ))}
              </ol>
              <Pager
                page={page}
                totalPages={data.pagination.totalPages}
                onPage={(next) => setParams({ ...(targetType ? { targetType } : {}), page: String(next) })}
              />
            </>
          )}
        </QueryView>
      </section>
    </div>
  );
}
