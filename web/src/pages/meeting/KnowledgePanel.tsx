import { useQuery } from '@tanstack/react-query';
import { QueryView } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { clockTime } from '../../lib/time.ts';

type Item = { text: string; start: number; speaker: string | null };

function MomentList({
  title,
  items,
  seek,
  detail,
}: {
  title: string;
  items: Item[];
  seek: (seconds: number) => void;
  detail?: (item: Item) => string | null;
}) {
  if (items.length === 0) return null;
  return (
    <section className="knowledge-group">
      <h3>{title}</h3>
      <ul>
        {items.map((item) => (
          <li key={`${item.start}:${item.text}`}>
            <button type="button" className="moment" onClick={() => seek(item.start)}>
              <span className="stamp">{clockTime(item.start)}</span>
            </button>{' '}
            {item.text}
            {detail?.(item) && <span className="detail"> — {detail(item)}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

const ownerAndDue = (item: Item) => {
  const { owner, dueDate } = item as Schemas['KnowledgeItem'];
  return [owner, dueDate && `due ${dueDate}`].filter(Boolean).join(', ') || null;
};

/** What the meeting produced — summary, chapters, decisions, actions, questions, topics — each at its moment. */
export function KnowledgePanel({ videoId, seek }: { videoId: string; seek: (seconds: number) => void }) {
  const knowledge = useQuery({
    queryKey: ['knowledge', videoId],
    queryFn: async () =>
      expectData(await api.GET('/videos/{id}/knowledge', { params: { path: { id: videoId } } })),
    // Extraction runs in the background after a transcript arrives.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2000 : false),
  });
  return (
    <section className="panel" aria-labelledby="knowledge-heading">
      <h2 id="knowledge-heading">What was said</h2>
      <QueryView query={knowledge}>
        {(data) => {
          if (data.status === 'none')
            return <p className="muted">Add a transcript to see the summary, decisions and actions.</p>;
          if (data.status === 'pending')
            return (
              <p className="muted" role="status">
                Reading the transcript…
              </p>
            );
          if (data.status === 'over_budget')
            return <p className="muted">The organization's AI budget is spent for this month.</p>;
          if (data.status === 'failed')
            return <p className="muted">The transcript could not be read this time.</p>;
          return (
            <>
              <MomentList title="Summary" items={data.summary} seek={seek} />
              <MomentList
                title="Chapters"
                items={data.chapters.map((chapter) => ({
                  text: chapter.title,
                  start: chapter.start,
                  speaker: null,
                }))}
                seek={seek}
              />
              <MomentList title="Decisions" items={data.decisions} seek={seek} />
              <MomentList title="Action items" items={data.actionItems} seek={seek} detail={ownerAndDue} />
              <MomentList title="Questions" items={data.questions} seek={seek} />
              <MomentList
                title="Topics"
                items={data.topics.map((topic) => ({
                  text: topic.name,
                  start: topic.firstStart,
                  speaker: null,
                }))}
                seek={seek}
              />
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
