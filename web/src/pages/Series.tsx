import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { CitationList } from '../components/AnswerText.tsx';
import { FormError } from '../components/Form.tsx';
import { MomentItems } from '../components/MomentItems.tsx';
import { ErrorState, Loading, QueryView } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { formatDate } from '../lib/time.ts';

/** A recurring meeting: its occurrences, and a briefing for the next one drawn from them. */
export function Series() {
  const { id = '' } = useParams();
  const series = useQuery({
    queryKey: ['series-one', id],
    queryFn: async () => expectData(await api.GET('/series/{id}', { params: { path: { id } } })),
  });
  const occurrences = useQuery({
    queryKey: ['series-videos', id],
    queryFn: async () =>
      expectData(await api.GET('/series/{id}/videos', { params: { path: { id }, query: { limit: 50 } } }))
        .data,
  });
  const prepare = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/ai/summaries/meeting-prep', {
          body: { seriesId: id, organizationId: series.data?.organizationId },
        }),
      ),
  });

  if (series.isPending) return <Loading />;
  if (series.isError) return <ErrorState error={series.error} retry={() => series.refetch()} />;
  const prep = prepare.data;
  return (
    <div className="page">
      <header className="page-header">
        <p className="crumbs">
          <Link to="/library">Library</Link>
        </p>
        <h1>{series.data.name}</h1>
        <p className="meta">
          {series.data.cadence} · {series.data.videoCount} meetings
        </p>
      </header>
      <div className="columns">
        <section className="panel" aria-labelledby="prep-heading">
          <div className="panel-header">
            <h2 id="prep-heading">Prepare the next meeting</h2>
            <button type="button" onClick={() => prepare.mutate()} disabled={prepare.isPending}>
              {prep ? 'Prepare again' : 'Prepare'}
            </button>
          </div>
          <FormError error={prepare.error} />
          {prepare.isPending && <Loading label="Reading the previous meetings" />}
          {prep && (
            <>
              <p>{prep.summary}</p>
              {prep.suggestedAgenda.length > 0 && (
                <>
                  <h3>Suggested agenda</h3>
                  <ol>
                    {prep.suggestedAgenda.map((item) => (
                      <li key={item.title}>
                        <strong>{item.title}</strong> — {item.reason}
                      </li>
                    ))}
                  </ol>
                </>
              )}
              <MomentItems title="Open action items" items={prep.openActionItems} />
              <CitationList citations={prep.citations} />
            </>
          )}
        </section>
        <section className="panel" aria-labelledby="occurrences-heading">
          <h2 id="occurrences-heading">Occurrences</h2>
          <QueryView
            query={occurrences}
            isEmpty={(data) => data.length === 0}
            empty="No meetings in this series yet."
          >
            {(data) => (
              <ul>
                {data.map((video) => (
                  <li key={video.id}>
                    <Link to={`/videos/${video.id}`}>{video.title}</Link>{' '}
                    <span className="muted">{formatDate(video.recordedAt ?? video.createdAt)}</span>
                  </li>
                ))}
              </ul>
            )}
          </QueryView>
        </section>
      </div>
    </div>
  );
}
