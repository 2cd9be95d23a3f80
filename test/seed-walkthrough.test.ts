import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USER } from '../scripts/seed/meetings.ts';
import { seed } from '../scripts/seed/seed.ts';
import { useTestApp } from './helpers/app.ts';
import { waitForKnowledge } from './helpers/knowledge.ts';

/** The README's walk-through of the seeded demo, as a new user tries it: no ids, plain questions. */
describe('the seeded demo, on first contact', () => {
  const ctx = useTestApp();
  let headers: Record<string, string>;

  const get = (url: string) => ctx().app.inject({ method: 'GET', url, headers });
  const ask = async (question: string) => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/ai/qa',
      headers,
      payload: { question },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as {
      answer: string;
      answered: boolean;
      confidence: number;
      citations: Array<{
        source: number;
        videoTitle: string;
        quote: string;
        start: number;
        speaker: string | null;
      }>;
    };
  };
  /** Waits until knowledge extraction has read every seeded meeting (stored lists answer then). */
  const knowledgeOfEveryMeeting = async () => {
    const videos = (await get('/videos?limit=100')).json().data as Array<{ id: string }>;
    for (const video of videos) await waitForKnowledge(ctx().database.db, video.id);
  };

  beforeAll(async () => {
    await seed(ctx().app);
    const signIn = await ctx().app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: DEMO_USER.email, password: DEMO_USER.password },
    });
    headers = { authorization: `Bearer ${signIn.json().data.session.sessionId}` };
  });

  it('makes the demo organization the demo user’s default', async () => {
    const me = (await get('/users/me')).json();
    const organizations = (await get('/organizations')).json().data as Array<{ id: string; slug: string }>;
    expect(me.defaultOrganizationId).toBe(organizations.find((org) => org.slug === 'acme-demo')?.id);
  });

  it('finds a meeting for words that are not all said together, the one holding more of them first', async () => {
    const both = (await get('/search?q=Northwind%20renewal')).json();
    expect(both.pagination.total).toBeGreaterThan(0);
    const [first] = both.data;
    expect(first.title).toMatch(/Northwind/);
    expect(first.moments.length).toBeGreaterThan(0);
    expect(first.snippet).toMatch(/<mark>/);
    // A required word that nobody says finds nothing.
    expect((await get('/search?q=Northwind%20%2Bzeppelin')).json().pagination.total).toBe(0);
  });

  it('answers "why" with the cause the transcript states, citations numbered in reading order', async () => {
    const result = await ask('Why did search go down on January 14?');
    expect(result.answered).toBe(true);
    expect(result.answer).toMatch(/^Daniel Okafor said: Root cause, then: a migration that rebuilt an index/);
    const markers = [...result.answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    expect(markers).toEqual(markers.map((_, at) => at + 1));
    expect(result.citations.map((citation) => citation.source)).toEqual(markers);
    expect(result.citations[0]?.videoTitle).toMatch(/outage|retro/i);
    for (const filler of ['Fine.', 'Um.', 'Yeah.']) expect(result.answer.startsWith(filler)).toBe(false);
    // The retrospective's opening says only what its title says: cited after "See also", not quoted.
    expect(result.answer).not.toMatch(/this was the retrospective for the search outage/i);
    // Asked for the cause in other words, the same cause leads, not the retrospective's opening.
    for (const question of ['What was the root cause of the outage?', 'What caused the outage?'])
      expect((await ask(question)).answer, question).toMatch(/^Daniel Okafor said: Root cause, then: /);
    // A contributing factor is a cause too: it leads over the open question that names staging.
    expect((await ask('Why is staging not like production?')).answer).toMatch(
      /^Daniel Okafor said: Contributing factor: staging data is a hundred times smaller than production/,
    );
  });

  it('answers a "why" from the meeting that discusses it, not with another meeting\'s root cause', async () => {
    const result = await ask('Why are we moving transcripts to a job queue?');
    expect(result.answered).toBe(true);
    expect(result.answer).not.toMatch(/Root cause/);
    expect(result.citations[0]?.videoTitle).toMatch(/moving transcripts to a job queue/);
  });

  it('answers "what was the problem with…" and "what went wrong with…" as a "why": with the problem raised', async () => {
    for (const question of ['What was the problem with the sweep?', 'What went wrong with the sweep?']) {
      const result = await ask(question);
      expect(result.answer).toMatch(
        /^On January 21, Aisha Mensah said on a Monday morning, when every weekly meeting gets uploaded at once, the sweep could take longer than five minutes and two sweeps overlap\./,
      );
      // "wrong" is how the question asks, not a word a meeting must say.
      expect(result.answer).not.toMatch(/No recording/);
    }
  });

  it('answers a "why" no one answered with "because" by the problem raised before the decision', async () => {
    const moved = await ask('Why did search v2 move to February?');
    expect(moved.answer).toMatch(
      /^On January 12, Daniel Okafor said they load tested the reindex and the cost was higher than they estimated\. /,
    );
    expect(moved.answer).toMatch(/\[1\] Maya Chen said search v2 moves to February 13, /);
    const queue = await ask('Why are we moving transcripts to a job queue?');
    expect(queue.answer).toMatch(
      /^Aisha Mensah said on a Monday morning, when every weekly meeting gets uploaded at once, the sweep could take longer than five minutes and two sweeps overlap\./,
    );
  });

  it('answers a "why" by the turn a decision opening with "then" follows from', async () => {
    const offline = await ask('Why did we postpone offline mode?');
    expect(offline.answer).toMatch(
      /^On January 5, Lena Fischer said: Customers keep asking, but when they dig in, what they actually want was to read a transcript on a plane\. Nobody had asked to record offline\. Maya Chen said then they postpone full offline mode\. \[1\]/,
    );
  });

  it('answers "what did we learn / find" with the finding stated, not the review\'s opening', async () => {
    const outage = await ask('What did we learn from the outage?');
    expect(outage.answer).toMatch(
      /^On January 16, Daniel Okafor said: Root cause, then: a migration that rebuilt an index without building it concurrently/,
    );
    const lessons = await ask('What lessons did we learn from the search outage?');
    expect(lessons.answer).toMatch(/^On January 16, Daniel Okafor said: Root cause, then: /);
    const recordings = await ask('What did Priya find in the session recordings?');
    expect(recordings.answer).toMatch(
      /^On January 8, Priya Raman said: First finding: Of the twenty admins, fourteen closed the checklist panel in the first minute\./,
    );
  });

  it('never quotes an acknowledgement or thanks around what was said', async () => {
    const legal = await ask('What does Sam need for legal?');
    expect(legal.answer).toMatch(
      /^On January 15, Sam Whitfield said their legal team asked whether they could export/,
    );
    expect(legal.answer).toMatch(/Maya Chen thought yes, but they would confirm with engineering/);
    expect(legal.answer).not.toMatch(/Good question|Thanks|Thank you/);
  });

  it('answers "what did we decide" with the decision stated, then what later meetings changed, each dated', async () => {
    const checklist = await ask('What did we decide about the onboarding checklist?');
    expect(checklist.answer).toMatch(
      /^On January 5, Maya Chen said: For now the decision stands: the checklist stays, and Priya owns the redesign\. \[1\]/,
    );
    // The later meeting's hold follows, and says when: which came first is plain.
    const hold = checklist.answer.indexOf(
      'On January 19, Maya Chen said the earlier decision to keep the checklist was on hold until the results were in.',
    );
    expect(hold).toBeGreaterThan(checklist.answer.indexOf('On January 8, '));
    expect(checklist.answer.match(/On January 19, /g)).toHaveLength(1);

    const searchV2 = await ask('What did we decide about search v2?');
    expect(searchV2.answer).toMatch(
      /^On January 5, Maya Chen said: Decision: search v2 ships behind a feature flag on January 30/,
    );
    expect(searchV2.answer).toMatch(/ On January 12, Maya Chen said search v2 moves to February 13, /);
  });

  it('says a decision changed only when a later meeting changes that decision', async () => {
    // January 19 puts "the earlier decision to keep the checklist" on hold in a turn that also
    // starts the experiment: that changes nothing about the lock alert.
    const alert = await ask('What did we decide about the lock alert?');
    expect(alert.answer).toMatch(
      /^On January 16, Tom Becker said: Decision: the batch does not start before the lock alert is live\. \[1\]/,
    );
    expect(alert.answer).not.toContain('That changed');
  });

  it('answers "when" with the date as it stands, after the date it replaced', async () => {
    const result = await ask('When does search v2 ship?');
    const first = result.answer.indexOf('search v2 ships behind a feature flag on January 30');
    const moved = result.answer.indexOf('On January 12, Maya Chen said search v2 moves to February 13');
    expect(first).toBeGreaterThan(-1);
    expect(moved).toBeGreaterThan(first);
    const movedCitation = result.citations.find((citation) => citation.quote.startsWith('Search v2 moves'));
    expect(movedCitation?.videoTitle).toBe('Weekly product sync — January 12');
    // The change follows the lead at once: the days other sources say of search v2 that say
    // nothing of its shipping ("Daniel owns the search v2 release…") are cited, not quoted between.
    const lead = result.citations[0];
    expect(lead?.quote).toMatch(/^Good\. So, decision: search v2 ships behind a feature flag on January 30/);
    // Maya's turn ends by handing the floor to Daniel; his reply has no room, so neither has her question.
    expect(lead?.quote).not.toContain('realistic');
    expect(result.answer).not.toContain('Daniel, is that realistic?');
    expect(result.answer).toContain(
      `[${lead?.source}] On January 12, Maya Chen said search v2 moves to February 13`,
    );
    expect(result.answer).not.toContain('Daniel owns the search v2 release');
    // What a decision states keeps its tense: "once the reindex had run" would read as done.
    expect(result.answer).toContain('then for everyone once the reindex has run.');
    // A "when" is told with the days said of search v2; talk that only says "search" is cited after
    // "See also", not quoted.
    expect(result.answer).not.toContain('Happy to start with search');
    expect(result.answer).not.toContain('compute budget');
    expect(result.answer).toMatch(/ See also \[\d\](?:, \[\d\])*\.$/);
    // The change is quoted where it says what changed, not at "Then the decision changes.", which
    // says the question's "changed" and nothing else.
    const changed = await ask('What changed about search v2?');
    expect(changed.answer).toContain('On January 12, Maya Chen said search v2 moves to February 13');
    expect(changed.answer).not.toMatch(/said then the decision changes/i);
    // A turn that decides something else first is quoted where it changes the lead.
    const setup = await ask('Did anyone disagree with the guided setup?');
    expect(setup.answer).toMatch(
      /^On January 8, Maya Chen said: Decision for today, then: the guided setup design/,
    );
    expect(setup.answer).toContain(
      'On January 19, Maya Chen said the earlier decision to keep the checklist was on hold until the results were in.',
    );
  });

  it('answers "who owns" with the owner who took the task on, named', async () => {
    const alert = await ask('Who owns the lock alert?');
    expect(alert.answer).toMatch(
      /^On January 16, Tom Becker said: Two: a database lock panel on the main dashboard, and an alert when any lock is held for more than thirty seconds\. That is Tom Becker's, due January 21\. \[1\]/,
    );
    const batch = await ask('Who is responsible for the night batch job?');
    expect(batch.answer).toMatch(
      /^On January 12, Maya Chen said Daniel prepares the night batch job by January 23\./,
    );
    expect(batch.citations[0]?.videoTitle).toBe('Weekly product sync — January 12');
    // The third task read out in one turn is found where it is said, and only owners of the matter follow.
    const article = await ask('Who owns the help article?');
    expect(article.answer).toMatch(
      /^On January 12, Maya Chen said Lena drafts the help article on the new search by February 6\. \[1\] On January 15, Lena Fischer said they send the notes of this call and the help article/,
    );
    expect(article.answer).not.toContain('Priya owns the redesign');
    // Another owner is quoted only for the matter as the lead names it: "release checklist", not
    // the onboarding checklist's "Priya owns the redesign" nor "Daniel owns the search v2 release".
    const checklist = await ask('Who owns the release checklist?');
    expect(checklist.answer).toBe(
      'On January 16, Tom Becker asked: Aisha, could you write that into the release checklist? Aisha Mensah said yes, by January 19. [1] See also [2], [3], [4], [5].',
    );
  });

  it('answers a question asked and answered in a meeting with that exchange', async () => {
    await knowledgeOfEveryMeeting();
    const reindex = await ask('How long does a reindex take?');
    expect(reindex.answer).toBe(
      'This was asked in a meeting. On January 5, in “Weekly product sync — January 5”, Maya Chen asked ' +
        '“How long does a reindex take for a big customer?” [1] Daniel Okafor answered: “For Northwind, roughly ' +
        'four hours. Most workspaces are under ten minutes. We can run it in the background and keep the old index ' +
        'serving until the new one is complete.” [2]',
    );
    expect(reindex.citations.map((citation) => citation.quote)).toEqual([
      'How long does a reindex take for a big customer?',
      'For Northwind, roughly four hours. Most workspaces are under ten minutes. We can run it in the background and keep the old index serving until the new one is complete.',
    ]);
  });

  it('answers "who is working on" with the owner, from a decision that names one too, not with an exchange that only shares its words', async () => {
    await knowledgeOfEveryMeeting();
    const checklist = await ask('Who is working on the onboarding checklist?');
    expect(checklist.answer).toMatch(
      /^On January 5, Maya Chen said: For now the decision stands: the checklist stays, and Priya owns the redesign\. \[1\]/,
    );
    // "onboarding" is said where the design review is cited after "See also".
    expect(checklist.confidence).toBeGreaterThanOrEqual(0.35);
    // "Tom, does the night batching work for operations?" was asked and answered on January 12:
    // it shares the words, not the question.
    const batch = await ask('Who is working on the night batch?');
    expect(batch.answer).toMatch(
      /^On January 12, Maya Chen said Daniel prepares the night batch job by January 23\./,
    );
  });

  it('answers what an experiment measures with what success means, and as confidently as it answers', async () => {
    for (const question of [
      'What does the experiment measure?',
      'How will we know if the experiment worked?',
    ]) {
      const result = await ask(question);
      expect(result.answer).toMatch(
        /^On January 19, Maya Chen said success means more workspaces with at least one channel and two members after seven days\./,
      );
      // "measure" is what the kind asks, answered by "success means": not a knowledge gap.
      expect(result.confidence).toBeGreaterThanOrEqual(0.35);
    }
  });

  it('keeps the tense of a task said after "Actions:" when the answer quotes from the task on', async () => {
    const result = await ask('What did Lena say about the help article?');
    // "I send the notes … when it is out" is a task, not something done: not "they sent … when it was out".
    expect(result.answer).toMatch(
      /^On January 15, Lena Fischer said they send the notes of this call and the help article on the new search when it is out\. \[1\]/,
    );
  });

  it('reports the person a question names with its verb, the others as saying what they said', async () => {
    const result = await ask('What did Daniel suggest about the queue?');
    // A decision stated after its label is said, not suggested.
    expect(result.answer).toMatch(/^On January 21, Daniel Okafor said: Decision, then: /);
    expect(result.answer).toMatch(/Daniel Okafor suggested four was fine during the day/);
    expect(result.answer).toMatch(/Aisha Mensah said /);
    expect(result.answer).not.toMatch(
      /(?:Maya Chen|Tom Becker|Priya Raman|Lena Fischer|Aisha Mensah) suggested/,
    );
    // What the person named asked leads, before the reply someone else gave.
    const jonas = await ask('What did Jonas say about the checklist?');
    expect(jonas.answer).toMatch(
      /^On January 8, Jonas Weber asked: Could they keep a small checklist inside settings/,
    );
  });

  it('answers "when" with the day or time said of the matter, and "open questions" with the question asked', async () => {
    const due = await ask('When is the changelog entry due?');
    expect(due.answer).toMatch(
      /^On January 19, Maya Chen said Lena writes the changelog entry by February 11\./,
    );
    // "How did … start?" asks what caused it.
    const how = await ask('How did the January 14 outage start?');
    expect(how.answer).toMatch(
      /^On January 16, Daniel Okafor said: Root cause, then: a migration that rebuilt an index/,
    );
    // A sentence that says only "January" of "January 14" is not about that day.
    expect(how.answer).not.toContain('due January 23');
    const started = await ask('When did the outage start?');
    expect(started.answer).toMatch(
      /^On January 16, Tom Becker said at ten fourteen, search requests started timing out\./,
    );
    // Once knowledge is in, the questions stored as left open that name it.
    await knowledgeOfEveryMeeting();
    const open = await ask('What are the open questions about the experiment?');
    expect(open.answer).toBe(
      'Questions left open about the experiment, latest meeting first: On January 19, in “Weekly product sync — January 19”: Tom Becker asked “Open question from me: what happens to workspaces created during the experiment if we pick the losing variant? Do they switch?” [1].',
    );
  });

  it('answers "how long" with the duration said', async () => {
    const result = await ask('How long did the outage last?');
    expect(result.answer).toMatch(
      /^On January 16, Tom Becker said the incident lasted forty-seven minutes\. \[1\]/,
    );
    expect(result.citations[0]?.videoTitle).toMatch(/search outage/);
    // The turn quoted names the outage ("This is the retrospective for the search outage…"): an
    // answer, not a knowledge gap (confidence under 0.35 lists it as an unanswered question).
    expect(result.confidence).toBeGreaterThanOrEqual(0.35);
  });

  it('answers "what is the X for Y?" with where X is said of Y, not with the stretch that says Y most', async () => {
    const metric = await ask('What is the success metric for the experiment?');
    expect(metric.answer).toMatch(
      /^On January 19, Maya Chen said success means more workspaces with at least one channel and two members after seven days\./,
    );
    // "…put it in the experiment plan" says a plan, and nothing of offline mode.
    const plan = await ask('What is the plan for offline mode?');
    expect(plan.answer).toMatch(/^On January 5, Maya Chen said then they postpone full offline mode\./);
  });

  it('answers "what are the next steps for…" with the tasks taken on about it, and nothing about what no task names', async () => {
    await knowledgeOfEveryMeeting();
    // Stored: the tasks of the meeting whose title names the job queue, though none says "job queue".
    const queue = await ask('What are the next steps for the job queue?');
    expect(queue.answer).toMatch(
      /^Action items about the job queue, latest meeting first: On January 21, in “Engineering discussion: moving transcripts to a job queue”: Aisha Mensah, by February 6: “I build the queue worker and the enqueue on upload by February 6\.” \[1\]; Tom Becker/,
    );
    expect(queue.citations).toHaveLength(3);
    // None stored names "offline mode": the transcript's task that names it, where it is said.
    const offline = await ask('What are the next steps for offline mode?');
    expect(offline.answer).toMatch(
      /^On January 5, Maya Chen said Lena collects the offline requests by January 9\. /,
    );
    expect(offline.answer).not.toMatch(/search v2/i);
    // After an event: the tasks of the meeting its title names, though none says "outage".
    const afterOutage = await ask('What are the next steps after the outage?');
    expect(afterOutage.answer).toMatch(
      /^Action items about the outage, latest meeting first: On January 16, in “Incident retrospective: search outage of January 14”: Daniel Okafor, by January 23: “One: every migration/,
    );
    const kangaroos = await ask('Any action items about kangaroos?');
    expect(kangaroos.answered).toBe(false);
  });

  it('answers "how did we notice…" with how the problem came to light', async () => {
    // The page need not say "outage": the retrospective's title does.
    expect((await ask('How did we notice the search outage?')).answer).toMatch(
      /^Tom Becker said at ten twenty the on-call, that was them, got paged for the error rate\. \[1\]/,
    );
    // What was said first, not the dashboards looked at afterwards; and the meeting's title names
    // the outage, so the answer is no knowledge gap.
    const detected = await ask('How was the outage detected?');
    expect(detected.answer).toMatch(/^Tom Becker said at ten twenty the on-call, that was them, got paged/);
    expect(detected.confidence).toBeGreaterThanOrEqual(0.35);
  });

  it('answers "what changed after…" with what was decided and taken on about it', async () => {
    const changed = await ask('What changed after the outage?');
    expect(changed.answer).toMatch(
      /^Decisions and action items about the outage, latest meeting first: On January 16, in “Incident retrospective: search outage of January 14”: Action item: Daniel Okafor, by January 23: /,
    );
    expect(changed.answer).toContain('Decision: the batch does not start before the lock alert is live.');
    expect(changed.answer).not.toContain('Blameless as always');
  });

  it('answers what happened at a meeting named by its title from that meeting alone, once its knowledge is in', async () => {
    await knowledgeOfEveryMeeting();
    const review = await ask('What happened at the design review?');
    expect(review.answer).toMatch(
      /^“Design review: onboarding and the setup checklist” \(January 8\): Priya Raman said: First finding: Of the twenty admins, fourteen closed the checklist panel in the first minute\. \[1\] Maya Chen said: Decision for today, then: the guided setup design is approved as a candidate/,
    );
    expect(review.answer).toMatch(
      /Action items: .*Jonas Weber, by January 21: “Jonas finishes the question screen/,
    );
    expect(new Set(review.citations.map((citation) => citation.videoTitle))).toEqual(
      new Set(['Design review: onboarding and the setup checklist']),
    );
    // "the last weekly sync" is the latest of the three; the first one's decisions are January 5's.
    const last = await ask('What happened in the last weekly sync?');
    expect(last.answer).toMatch(
      /^“Weekly product sync — January 19” \(January 19\): Maya Chen said: Decision: they announce it, a changelog entry plus a one-time tooltip\. \[1\]/,
    );
    const attended = await ask('Who attended the design review?');
    expect(attended.answer).toBe(
      'In “Design review: onboarding and the setup checklist” (January 8), 3 people spoke, most talk first: ' +
        'Priya Raman (11 turns, 57 % of the talk) [1]; Maya Chen (7 turns, 27 % of the talk) [2]; Jonas Weber (6 turns, 16 % of the talk) [3].',
    );
    // A task taken on as "That is mine" is quoted with what it is.
    const retro = await ask('What happened in the incident retrospective?');
    expect(retro.answer).toContain(
      'Tom Becker, by January 21: “Two: a database lock panel on the main dashboard, and an alert when any lock is held for more than thirty seconds. That is mine, due January 21.”',
    );
    const first = await ask('What was decided in the first weekly sync?');
    expect(first.answer).toMatch(
      /^In “Weekly product sync — January 5” \(January 5\): Maya Chen said: Decision: search v2 ships behind a feature flag on January 30/,
    );
  });

  it('lists as left open only the questions no one answered, and tells a meeting in the order it was said', async () => {
    await knowledgeOfEveryMeeting();
    const call = await ask('What happened in the Northwind check-in?');
    const open = call.answer.slice(call.answer.indexOf('Left open: '));
    expect(open).toMatch(
      /^Left open: .*will the new search also rank meetings from channels a user does not follow/,
    );
    // Answered at once ("Mostly well. We now have about three hundred people…"), in other words.
    expect(open).not.toMatch(/How are things going with the rollout/);

    const rollout = await ask('How are things going with Northwind?');
    expect(rollout.answer).toMatch(
      /^On January 15, Lena Fischer asked: How were things going with the rollout at Northwind\? Sam Whitfield said: Mostly well\./,
    );
    const bigOne = rollout.answer.indexOf('Single sign-on was the big one.');
    expect(bigOne).toBeGreaterThan(-1);
    expect(rollout.answer.indexOf('The second thing was export.')).toBeGreaterThan(bigOne);
  });

  it('lists the open questions and the decisions, latest meeting first, over the days named', async () => {
    await knowledgeOfEveryMeeting();
    const open = await ask('What are the open questions?');
    expect(open.answer).toMatch(
      /^Questions left open, latest meeting first: On January 21, in “Engineering discussion: moving transcripts to a job queue”: Daniel Okafor asked “Open question: do we also move the search index updates into the same job/,
    );
    expect(open.answer).not.toMatch(/How are things going|When did we understand/);
    const status = await ask('What is the status of search v2?');
    expect(status.answer).toMatch(
      /^The latest on search v2, latest meeting first: On January 12, in “Weekly product sync — January 12”: Maya Chen: “Then the decision changes\. Search v2 moves to February 13, .*\[1\]\. On January 5, in “Weekly product sync — January 5”: Maya Chen: “So, decision: search v2 ships behind a feature flag on January 30/,
    );
    // No item names "onboarding checklist" whole: those naming the checklist in the meetings that
    // discuss the onboarding checklist answer, not the retrospective's "release checklist".
    const checklist = await ask('What happened with the onboarding checklist?');
    expect(checklist.answer).toMatch(
      /^The latest on the onboarding checklist, latest meeting first: On January 19, in “Weekly product sync — January 19”: Maya Chen: “The earlier decision to keep the checklist is on hold until the results are in\.” \[1\]\. On January 5, .*“For now the decision stands: the checklist stays, and Priya owns the redesign\.”/,
    );
    expect(checklist.answer).not.toMatch(/release checklist/);
    // With its year: "January 12" alone is the latest January 12 up to now, next year another day
    // (the answer names the year once it is not the current one).
    const january12 = await ask('What did we decide on January 12, 2026?');
    expect(january12.answer).toMatch(
      /^Decisions in the meetings held on January 12(, 2026)?, latest meeting first: On January 12, in “Weekly product sync — January 12”: Maya Chen: “Then the decision changes\. Search v2 moves to February 13/,
    );
  });

  it('answers "who is" a speaker with where they speak and what they own', async () => {
    await knowledgeOfEveryMeeting();
    const sam = await ask('Who is Sam?');
    expect(sam.answer).toBe(
      'Sam Whitfield speaks in one meeting here: “Customer call: Northwind quarterly check-in” (January 15; 9 turns) [1]. ' +
        'Action items they own, soonest due first: by January 30: “Sam checks the legal requirements for export, speaker names and timestamps, by January 30.” [2].',
    );
  });

  it('answers a follow-up that names nothing ("Who owns it?") about what was asked before it', async () => {
    const chat = async (message: string, conversationId?: string) => {
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/ai/chat',
        headers,
        payload: { message, ...(conversationId ? { conversationId } : {}) },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { conversationId: string; assistantMessage: { content: string } };
    };
    const first = await chat('When does search v2 ship?');
    const owner = await chat('Who owns it?', first.conversationId);
    expect(owner.assistantMessage.content).toMatch(
      /^On January 5, Maya Chen said Daniel owns the search v2 release behind the flag for January 30\./,
    );
    // One that names something is answered from where that is said.
    const moved = await chat('Why did it move?', first.conversationId);
    expect(moved.assistantMessage.content).toMatch(
      /^On January 12, Maya Chen said search v2 moves to February 13/,
    );
    // A word no meeting says is named once, when it is asked, not again in each follow-up.
    const kangaroos = await chat('What is the budget for kangaroos?');
    expect(kangaroos.assistantMessage.content).toMatch(/^No recording you can access mentions “kangaroos”\./);
    const following = await chat('And for search?', kangaroos.conversationId);
    expect(following.assistantMessage.content).not.toMatch(/kangaroos/);
  });

  it('answers "what did Jonas say?" with what Jonas said, not with others mentioning him', async () => {
    const jonas = await ask('What did Jonas say?');
    expect(jonas.answer).toMatch(
      /^On January 8, in “Design review: onboarding and the setup checklist”, Jonas Weber asked: Could they keep a small checklist inside settings/,
    );
    expect(new Set(jonas.citations.map((citation) => (citation as { speaker?: string }).speaker))).toEqual(
      new Set(['Jonas Weber']),
    );
  });

  it('answers "what did Daniel commit to?" with the action items he owns, soonest due first', async () => {
    await knowledgeOfEveryMeeting();
    const daniel = await ask('What did Daniel commit to?');
    expect(daniel.answer).toMatch(
      /^Daniel Okafor's action items, soonest due first: by January 16: “Daniel also separates the indexer's connection pool by January 16\.” \(“Weekly product sync — January 5”, January 5\) \[1\]; /,
    );
  });

  it('answers "action items for Tom" and "what does Tom own?" with what Tom owns, not with what says "Tom"', async () => {
    await knowledgeOfEveryMeeting();
    for (const question of ['What are the open action items for Tom?', 'What does Tom own?']) {
      const tom = await ask(question);
      // "That is mine, due January 21" never says "Tom": a list of items naming him left it out.
      expect(tom.answer, question).toMatch(
        /^Tom Becker's action items, soonest due first: by January 21: “Two: a database lock panel on the main dashboard/,
      );
    }
    // A matter that is nobody keeps the items that name it.
    expect((await ask('Action items for Northwind?')).answer).toMatch(/^Action items about Northwind, /);
  });

  it('answers "what are my action items?" with the asker\'s own, soonest due first', async () => {
    const mine = await ask('What are my action items?');
    expect(mine.answer).toMatch(
      /^Your action items \(Maya Chen\), soonest due first: by January 5: “I will update the roadmap page today\.” \(“Weekly product sync — January 5”, January 5\) \[1\]; by January 14: “I update the roadmap and email the three customers by Wednesday January 14\.”/,
    );
  });

  it('answers what was decided, from the meeting that decided it', async () => {
    const result = await ask('What did we decide about search v2 and the feature flag?');
    expect(result.answered).toBe(true);
    expect(result.answer).toMatch(
      /^On January 5, Maya Chen said: Decision: search v2 ships behind a feature flag on January 30/,
    );
  });

  it('extracts the decisions and action items stated with the usual cue phrases', async () => {
    const videos = (await get('/videos?limit=100')).json().data as Array<{ id: string; title: string }>;
    const knowledgeOf = async (title: string) => {
      const video = videos.find((candidate) => candidate.title === title);
      if (!video) throw new Error(`no video "${title}"`);
      await waitForKnowledge(ctx().database.db, video.id);
      return (await get(`/videos/${video.id}/knowledge`)).json() as {
        decisions: Array<{ text: string }>;
        actionItems: Array<{ text: string; owner: string | null; dueDate: string | null }>;
      };
    };
    const first = await knowledgeOf('Weekly product sync — January 5');
    expect(first.decisions.map((decision) => decision.text)).toContainEqual(
      expect.stringMatching(/decision: search v2 ships behind a feature flag on January 30/),
    );
    const second = await knowledgeOf('Weekly product sync — January 12');
    expect(second.actionItems).toContainEqual(
      expect.objectContaining({
        text: expect.stringMatching(/Daniel prepares the night batch job by January 23/),
        owner: 'Daniel Okafor',
        dueDate: '2026-01-23',
      }),
    );
  });

  it('lists knowledge gaps worth a look, none of them a fragment of talk', async () => {
    await knowledgeOfEveryMeeting();
    // The seeded meetings took place in January 2026: a year's window holds them.
    const gaps = (await get('/ai/gaps?limit=100&days=3650')).json();
    const everything = (await get('/ai/gaps?limit=100&days=3650&minSeverity=low')).json();
    // When this was written: 10 by default, 13 with the low ones (before: hundreds, fragments first).
    expect(gaps.pagination.total).toBeGreaterThan(0);
    expect(gaps.pagination.total).toBeLessThan(everything.pagination.total);
    for (const gap of gaps.data as Array<{ type: string; title: string; severity: string }>) {
      expect(gap.severity).not.toBe('low');
      const said = gap.title.replace(/^[A-Z][a-z ]+: /, '');
      // A topic asked about is named by its key words ("Undocumented topic: lock"); the others quote talk.
      if (gap.type !== 'undocumented_topic')
        expect(said.split(/\s+/).length, gap.title).toBeGreaterThanOrEqual(4);
      expect(said, gap.title).not.toMatch(/^(um|uh)\b/i);
      // "Stale decision: Decision, then: we move…" and "Open question from me: …" read as labels twice.
      expect(gap.title, gap.title).not.toMatch(/: (?:\w+, )?(?:decision|open question)\b[^:.?]*:/i);
      expect(gap.title, gap.title).not.toMatch(/^open question\b[^:.?]*:/i);
    }
  });

  it('shows the decisions that change between meetings of the series as conflicts', async () => {
    await knowledgeOfEveryMeeting();
    const conflicts = (await get('/ai/gaps/conflicts?days=3650')).json().data as Array<{
      kind: string;
      statements: Array<{ text: string; videoTitle: string }>;
    }>;
    const about = (pattern: RegExp) =>
      conflicts.find((conflict) => conflict.statements.some((statement) => pattern.test(statement.text)));
    const searchDate = about(/Search v2 moves to February 13/);
    expect(searchDate?.kind).toBe('superseded');
    expect(searchDate?.statements.map((statement) => statement.videoTitle)).toEqual([
      'Weekly product sync — January 5',
      'Weekly product sync — January 12',
    ]);
    expect(searchDate?.statements[0]?.text).toMatch(/search v2 ships behind a feature flag on January 30/);
    const checklist = about(/earlier decision to keep the checklist is on hold/);
    expect(checklist?.statements[0]?.text).toMatch(/the checklist stays/);
    expect(conflicts).toHaveLength(2);
  });

  it('says it does not know about what no meeting discusses, naming the words no meeting says', async () => {
    const result = await ask('What did we decide about the Mars colony oxygen supply?');
    expect(result.answered).toBe(false);
    expect(result.answer).toBe(
      "I don't know: no recording you can access mentions “Mars”, “colony”, “oxygen”, or “supply”.",
    );
    expect(result.citations).toEqual([]);
  });

  it('says first that no meeting mentions a word of the question, then what was said of the rest', async () => {
    const result = await ask('What is the budget for kangaroos?');
    expect(result.answer).toMatch(
      /^No recording you can access mentions “kangaroos”\. Daniel Okafor said: Embedding every transcript segment for Northwind alone would take most of their monthly compute budget/,
    );
    // A misspelt word is named as typed: the reader sees why the answer may miss.
    const misspelt = await ask('What did Priya say about the onbaording checklist?');
    expect(misspelt.answer).toMatch(
      /^No recording you can access mentions “onbaording”\. On January 8, Priya Raman said/,
    );
    // Said, however rarely, is no caveat; nor is how a question asks for an amount.
    expect((await ask('What did Priya say about the onboarding checklist?')).answer).toMatch(
      /^On January 8, Priya Raman said/,
    );
    expect((await ask('How many people use the workspace at Northwind?')).answer).toMatch(
      /^On January 15, Sam Whitfield said: Mostly well\. They now have about three hundred people in the workspace/,
    );
  });

  it('answers what a meeting concluded with its decisions, and its outcome with what was decided and taken on', async () => {
    expect((await ask('What did the design review conclude?')).answer).toBe(
      'In “Design review: onboarding and the setup checklist” (January 8): Maya Chen said: Decision for today, then: the guided setup design is approved as a candidate, with a skip option and editable names, and the checklist moves into settings as a reference page if the guided setup wins. [1]',
    );
    const outcome = await ask('What was the outcome of the retrospective?');
    expect(outcome.answer).toMatch(
      /^“Incident retrospective: search outage of January 14” \(January 16\): .* Decision: the batch does not start before the lock alert is live\. \[3\] Action items: Daniel Okafor, by January 23: /,
    );
  });

  it('lists the decisions a person stated', async () => {
    const maya = await ask('What did Maya decide?');
    expect(maya.answer).toMatch(
      /^Decisions Maya Chen stated, latest meeting first: On January 19, in “Weekly product sync — January 19”: Maya Chen: “Decision: we announce it, a changelog entry plus a one-time tooltip\.” \[1\]/,
    );
    expect(maya.citations).toHaveLength(8);
    expect((await ask('What decisions did Tom make?')).answer).toBe(
      'Decisions Tom Becker stated, latest meeting first: On January 16, in “Incident retrospective: search outage of January 14”: Tom Becker: “Decision: the batch does not start before the lock alert is live.” [1].',
    );
  });

  it("quotes another meeting only where it says all the question asks, when the lead's meeting does", async () => {
    const saml = await ask('Does Northwind need SAML?');
    expect(saml.answer).toMatch(
      /^On January 15, Maya Chen said SAML was not on the roadmap for this quarter\./,
    );
    // Another meeting's "a maintenance window for the Northwind reindex" says "Northwind" and
    // "need", not SAML: it is cited after "See also", not quoted.
    expect(saml.answer).not.toContain('maintenance window');
    expect(saml.answer).toMatch(/See also \[4\], \[5\]\.$/);
    expect(saml.citations.map((citation) => citation.videoTitle)).toContain(
      'Weekly product sync — January 5',
    );
    const statusPage = await ask('What did Aisha say about the status page?');
    expect(statusPage.answer).toMatch(
      /^On January 16, Aisha Mensah said they also posted the status page update late\./,
    );
    expect(statusPage.answer).not.toContain('Status on the night batch');
  });

  it('keeps the tense of what a decision goes on to assign in its turn', async () => {
    // "Priya did the tooltip" would read as done: it is what was decided she does.
    const announcement = await ask('What was decided about the announcement?');
    expect(announcement.answer).toMatch(
      /^On January 19, Maya Chen said: Decision: they announce it, a changelog entry plus a one-time tooltip\. Lena writes the changelog text, Priya does the tooltip\. \[1\]/,
    );
  });

  it('answers who disagreed with someone with the replies to them that disagree', async () => {
    const result = await ask('Who disagreed with Maya?');
    expect(result.answer).toMatch(
      /^Replies disagreeing with Maya Chen, latest meeting first: Tom Becker on January 19, .*; Daniel Okafor on January 12, in “Weekly product sync — January 12”, to “I would rather keep the date\.”: “I disagree, honestly\. /,
    );
    expect(result.citations[1]).toMatchObject({
      speaker: 'Daniel Okafor',
      videoTitle: 'Weekly product sync — January 12',
    });
  });

  it('answers who agreed with someone though no one says "agree": "He has a point."', async () => {
    const result = await ask('Who agreed with Daniel?');
    expect(result.answer).toContain(
      'Lena Fischer on January 12, in “Weekly product sync — January 12”, to “I disagree, honestly. If large workspaces get a different ranking than small ones, support will have to explain why two…”: “He has a point. I spent weeks on those tickets.” [3]',
    );
    expect(result.citations.map((citation) => citation.speaker)).toEqual([
      'Aisha Mensah',
      'Tom Becker',
      'Lena Fischer',
    ]);
  });
});
