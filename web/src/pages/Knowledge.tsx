import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { InlineSelect } from '../components/Form.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { clockTime, formatDate, momentLink } from '../lib/time.ts';
import { Trends } from './Insights.tsx';

const SEVERITIES = ['high', 'medium', 'low'] as const;
const PERIODS = [
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: 365, label: 'Last year' },
  { days: 3650, label: 'Last 10 years' },
] as const;
const LONGEST = PERIODS[PERIODS.length - 1] as (typeof PERIODS)[number];

/** Sets one parameter of the page's URL (removes it for ''), keeping the others: each panel's filters. */
function useSetParam() {
  const [, setParams] = useSearchParams();
  return (key: string, value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(key, value);
      else next.delete(key);
      return next;
    });
}

/** The period a panel looks at, kept in the page's URL under `key` (the API's default otherwise). */
function usePeriod(key: string, fallback: number) {
  const [params] = useSearchParams();
  const set = useSetParam();
  const days = PERIODS.find((period) => String(period.days) === params.get(key))?.days ?? fallback;
  return [days, (value: string) => set(key, value)] as const;
}

function PeriodSelect({ days, onChange }: { days: number; onChange: (value: string) => void }) {
  return (
    <InlineSelect label="Period" value={String(days)} onChange={onChange}>
      {PERIODS.map((period) => (
        <option key={period.days} value={period.days}>
          {period.label}
        </option>
      ))}
    </InlineSelect>
  );
}

/**
 * An empty list names the period it looked at and, short of the longest, offers it: meetings
 * older than the period (a library imported from last year, the seeded demo) are one click away.
 */
function EmptyInPeriod({
  what,
  days,
  onChange,
}: {
  what: string;
  days: number;
  onChange: (value: string) => void;
}) {
  const label = PERIODS.find((period) => period.days === days)?.label ?? `Last ${days} days`;
  return (
    <>
      {what} in the {label.toLowerCase()}.
      {days < LONGEST.days && (
        <>
          {' '}
          <button type="button" className="link-button" onClick={() => onChange(String(LONGEST.days))}>
            Look over the {LONGEST.label.toLowerCase()}
          </button>
        </>
      )}
    </>
  );
}

const GAP_TYPES = {
  unanswered_question: 'Unanswered questions',
  open_question: 'Open questions',
  decision_without_owner: 'Decisions without an owner',
  stale_decision: 'Stale decisions',
  undocumented_topic: 'Undocumented topics',
} as const;
type GapType = keyof typeof GAP_TYPES;

/**
 * A line quoted from a meeting after where it was said (the children), so that a gap's evidence and a
 * conflict's statements are quoted the same way.
 */
function Quote({ text, children }: { text: string; children: ReactNode }) {
  return (
    <li>
      {children} “{text}”
    </li>
  );
}

function Gaps({ organizationId }: { organizationId: string }) {
  const [params] = useSearchParams();
  const set = useSetParam();
  const minSeverity = (SEVERITIES.find((value) => value === params.get('severity')) ??
    'medium') as (typeof SEVERITIES)[number];
  const type =
    (Object.keys(GAP_TYPES).find((value) => value === params.get('type')) as GapType | undefined) ??
    undefined;
  const [days, setDays] = usePeriod('days', 90);
  const gaps = useQuery({
    queryKey: ['gaps', organizationId, minSeverity, type, days],
    queryFn: async () =>
      expectData(
        await api.GET('/ai/gaps', {
          params: { query: { organizationId, minSeverity, days, limit: 50, ...(type ? { type } : {}) } },
        }),
      ).data,
  });
  return (
    <section className="panel" aria-labelledby="gaps-heading">
      <div className="panel-header">
        <h2 id="gaps-heading">Knowledge gaps</h2>
        <div className="filters">
          <InlineSelect
            label="Severity at least"
            value={minSeverity}
            onChange={(value) => set('severity', value)}
          >
            {SEVERITIES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </InlineSelect>
          <PeriodSelect days={days} onChange={setDays} />
          <InlineSelect label="Kind" value={type ?? ''} onChange={(value) => set('type', value)}>
            <option value="">All</option>
            {Object.entries(GAP_TYPES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </InlineSelect>
        </div>
      </div>
      <QueryView
        query={gaps}
        isEmpty={(data) => data.length === 0}
        empty={<EmptyInPeriod what="No gaps at this severity" days={days} onChange={setDays} />}
      >
        {(data) => (
          <ul className="gaps">
            {data.map((gap) => (
              <li key={gap.id}>
                <p>
                  <span className={`severity ${gap.severity}`}>{gap.severity}</span>{' '}
                  <strong>{gap.title}</strong>{' '}
                  <span className="muted">
                    {GAP_TYPES[gap.type]} · {gap.occurrences}× · last {formatDate(gap.lastSeenAt)}
                  </span>
                </p>
                <ul>
                  {gap.evidence.slice(0, 3).map((evidence) => (
                    <Quote
                      key={`${evidence.videoId}:${evidence.start}:${evidence.text}`}
                      text={evidence.text}
                    >
                      {evidence.videoId && evidence.start !== null ? (
                        <Link to={momentLink(evidence.videoId, evidence.start)}>
                          {evidence.videoTitle} · {clockTime(evidence.start)}
                        </Link>
                      ) : (
                        <span className="muted">asked {formatDate(evidence.at)}</span>
                      )}
                    </Quote>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Conflicts({ organizationId }: { organizationId: string }) {
  const [days, setDays] = usePeriod('conflictDays', 365);
  const conflicts = useQuery({
    queryKey: ['conflicts', organizationId, days],
    queryFn: async () =>
      expectData(await api.GET('/ai/gaps/conflicts', { params: { query: { organizationId, days } } })).data,
  });
  return (
    <section className="panel" aria-labelledby="conflicts-heading">
      <div className="panel-header">
        <h2 id="conflicts-heading">Conflicting decisions</h2>
        <div className="filters">
          <PeriodSelect days={days} onChange={setDays} />
        </div>
      </div>
      <QueryView
        query={conflicts}
        isEmpty={(data) => data.length === 0}
        empty={<EmptyInPeriod what="No decision contradicts another" days={days} onChange={setDays} />}
      >
        {(data) => (
          <ul className="conflicts">
            {data.map((conflict) => (
              <li key={conflict.id}>
                <p>
                  <strong>{conflict.subject}</strong> <span className="muted">{conflict.kind}</span>
                </p>
                <ul>
                  {conflict.statements.map((statement) => (
                    <Quote key={`${statement.videoId}:${statement.start}`} text={statement.text}>
                      <Link to={momentLink(statement.videoId, statement.start)}>
                        {statement.videoTitle} · {formatDate(statement.date)} · {clockTime(statement.start)}
                      </Link>
                    </Quote>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Topics({ organizationId }: { organizationId: string }) {
  const topics = useQuery({
    queryKey: ['topics', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/topics', { params: { query: { organizationId, limit: 30 } } })).data,
  });
  return (
    <section className="panel" aria-labelledby="topics-heading">
      <h2 id="topics-heading">Topics</h2>
      <QueryView
        query={topics}
        isEmpty={(data) => data.length === 0}
        empty="Topics appear as meetings are transcribed."
      >
        {(data) => (
          <ul className="tags">
            {data.map((topic) => (
              <li key={topic.id}>
                <Link to={`/search?q=${encodeURIComponent(topic.name)}`}>{topic.name}</Link>{' '}
                <span className="muted">{topic.videoCount}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

export function Knowledge() {
  const { organization } = useCurrent();
  return (
    <div className="page">
      <header className="page-header">
        <h1>Knowledge</h1>
      </header>
      <div className="columns">
        <div>
          <Gaps organizationId={organization.id} />
        </div>
        <div>
          <Conflicts organizationId={organization.id} />
          <Trends organizationId={organization.id} />
          <Topics organizationId={organization.id} />
        </div>
      </div>
    </div>
  );
}
