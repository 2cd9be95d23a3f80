import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AnswerText, CitationList } from '../components/AnswerText.tsx';
import { FormError, submitWith } from '../components/Form.tsx';
import { Loading } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { Conversations } from './Conversations.tsx';

/** One question, answered from what was said, with its sources; scoped to a meeting by `?video=`. */
function QuestionAnswer() {
  const { organization } = useCurrent();
  const [params, setParams] = useSearchParams();
  const videoId = params.get('video');
  const [question, setQuestion] = useState(params.get('q') ?? '');
  const inputId = useId();
  const video = useQuery({
    queryKey: ['video', videoId],
    enabled: Boolean(videoId),
    queryFn: async () =>
      expectData(await api.GET('/videos/{id}', { params: { path: { id: videoId as string } } })),
  });
  const ask = useMutation({
    mutationFn: async (asked: string) =>
      expectData(
        await api.POST('/ai/qa', {
          body: {
            question: asked,
            organizationId: organization.id,
            ...(videoId ? { videoIds: [videoId] } : {}),
          },
        }),
      ),
  });
  const submit = submitWith(() => {
    if (question.trim().length >= 3) ask.mutate(question.trim());
  });
  const followUp = (next: string) => {
    setQuestion(next);
    ask.mutate(next);
  };
  const answer = ask.data;
  // Questions any library answers from its meetings' knowledge: somewhere to start.
  const starters = videoId
    ? [
        'Summarize this meeting',
        'What was decided in this meeting?',
        'What are the action items from this meeting?',
      ]
    : ['What happened in the last meeting?', 'What are the open questions?', 'What are my action items?'];

  return (
    <section className="panel" aria-labelledby="ask-heading">
      <h2 id="ask-heading">Ask a question</h2>
      <p className="muted">
        {videoId ? (
          <>
            About <Link to={`/videos/${videoId}`}>{video.data?.title ?? 'this meeting'}</Link> only ·{' '}
            <button type="button" className="link-button" onClick={() => setParams({})}>
              ask all meetings instead
            </button>
          </>
        ) : (
          <>Answers come from every meeting of {organization.name}, with the moments they were said.</>
        )}
      </p>
      <form onSubmit={submit} className="ask-form">
        <label htmlFor={inputId} className="visually-hidden">
          Your question
        </label>
        <input
          id={inputId}
          value={question}
          maxLength={1000}
          placeholder="What did we decide about the launch date?"
          onChange={(event) => setQuestion(event.target.value)}
        />
        <button type="submit" disabled={ask.isPending || question.trim().length < 3}>
          Ask
        </button>
      </form>
      {!answer && !ask.isPending && (
        <div className="follow-ups">
          <h3>Try</h3>
          <ul>
            {starters.map((starter) => (
              <li key={starter}>
                <button type="button" className="secondary" onClick={() => followUp(starter)}>
                  {starter}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <FormError error={ask.error} />
      {ask.isPending && <Loading label="Reading the meetings" />}
      {answer && !ask.isPending && (
        <article className="answer" aria-live="polite">
          {answer.answered ? (
            <AnswerText text={answer.answer} citations={answer.citations} />
          ) : (
            <div className="no-answer">
              <p>
                <strong>I don't know.</strong> No meeting says this clearly enough to answer. The question is
                recorded as a <Link to="/knowledge?type=unanswered_question">knowledge gap</Link>, so someone
                can answer it.
              </p>
            </div>
          )}
          <CitationList citations={answer.citations} />
          {answer.followUpQuestions.length > 0 && (
            <div className="follow-ups">
              <h3>Ask next</h3>
              <ul>
                {answer.followUpQuestions.map((next) => (
                  <li key={next}>
                    <button type="button" className="secondary" onClick={() => followUp(next)}>
                      {next}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </article>
      )}
    </section>
  );
}

export function Ask() {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Ask</h1>
      </header>
      <QuestionAnswer />
      <Conversations />
    </div>
  );
}
