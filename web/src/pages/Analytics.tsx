import { useQuery } from '@tanstack/react-query';
import { QueryView } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { clockTime } from '../lib/time.ts';

/** Talk time per speaker across the organization's meetings, as bars and as the table behind them. */
export function Analytics() {
  const { organization } = useCurrent();
  const speakers = useQuery({
    queryKey: ['analytics', organization.id],
    queryFn: async () =>
      expectData(
        await api.GET('/analytics/speakers', {
          params: { query: { organizationId: organization.id, limit: 50 } },
        }),
      ),
  });
  return (
    <div className="page">
      <header className="page-header">
        <h1>Speaker analytics</h1>
      </header>
      <QueryView
        query={speakers}
        isEmpty={(page) => page.data.length === 0}
        empty="Talk time appears once meetings have transcripts with speakers."
      >
        {(page) => {
          const longest = Math.max(...page.data.map((speaker) => speaker.talkTimeSeconds), 1);
          return (
            <>
              <section className="panel" aria-labelledby="talk-heading">
                <h2 id="talk-heading">Talk time</h2>
                <ul className="bars" aria-label="Talk time per speaker">
                  {page.data.map((speaker) => (
                    <li key={speaker.speakerId}>
                      <span className="bar-label">{speaker.name}</span>
                      <span className="bar-track" aria-hidden="true">
                        <span
                          className="bar"
                          style={{ width: `${(speaker.talkTimeSeconds / longest) * 100}%` }}
                        />
                      </span>
                      <span className="bar-value">
                        {clockTime(speaker.talkTimeSeconds)} · {Math.round(speaker.talkShare * 100)}%
                      </span>
                    </li>
                  ))}
                </ul>
              </section>
              <section className="panel table-scroll" aria-labelledby="speakers-heading">
                <h2 id="speakers-heading">Speakers</h2>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Speaker</th>
                      <th scope="col">Meetings</th>
                      <th scope="col">Words / min</th>
                      <th scope="col">Turns</th>
                      <th scope="col">Longest monologue</th>
                      <th scope="col">Questions</th>
                      <th scope="col">Interruptions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((speaker) => (
                      <tr key={speaker.speakerId}>
                        <th scope="row">{speaker.name}</th>
                        <td>{speaker.videoCount}</td>
                        <td>{Math.round(speaker.wordsPerMinute)}</td>
                        <td>{speaker.turns}</td>
                        <td>{clockTime(speaker.longestMonologueSeconds)}</td>
                        <td>{speaker.questionCount}</td>
                        <td>{speaker.interruptions}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            </>
          );
        }}
      </QueryView>
    </div>
  );
}
