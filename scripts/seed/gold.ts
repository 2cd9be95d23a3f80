/**
 * Labelled gold data for the seven hand-written demo meetings in `meetings/`: what a careful
 * reader finds in each — the decisions taken in the meeting, the action items (with owner and due
 * date where said), the questions asked about the subject, and the decisions that change between
 * meetings. Lines are 1-based line numbers of the meeting's file (one speaker turn per line); an
 * item said more than once (proposed, then read out in the actions) lists every line, and a
 * finding on any of them counts. Labelled by hand from the text, before the extractor was tuned
 * against it; `scripts/eval/seed-gold.ts` scores the local extractor against it.
 */

export type GoldDecision = { lines: number[]; says: string };
export type GoldActionItem = {
  lines: number[];
  says: string;
  owner: string;
  /** `YYYY-MM-DD`; absent when no day is said. Several when the meeting names two ("by Monday", later "Monday February 2"). */
  due?: string | string[];
};
/** `answered`: a reply in the meeting answers it; false when it is left open ("I do not know yet", "let us keep that open"). */
export type GoldQuestion = { lines: number[]; says: string; answered: boolean };
export type GoldMeeting = {
  decisions: GoldDecision[];
  actionItems: GoldActionItem[];
  questions: GoldQuestion[];
};
/** A decision of one meeting that a later meeting changes or puts on hold. */
export type GoldConflict = {
  about: string;
  earlier: { file: string; line: number };
  later: { file: string; line: number };
};

export const GOLD: Record<string, GoldMeeting> = {
  'weekly-sync-1': {
    decisions: [
      { lines: [8], says: 'search v2 ships behind a feature flag on January 30' },
      { lines: [10], says: 'export waits until February' },
      { lines: [12], says: 'full offline mode is postponed' },
      { lines: [16], says: 'the checklist stays; Priya owns the redesign' },
    ],
    actionItems: [
      { lines: [7, 19], says: 'empty state mock', owner: 'Priya Raman', due: '2026-01-07' },
      { lines: [12, 13, 19], says: 'collect the offline requests', owner: 'Lena Fischer', due: '2026-01-09' },
      { lines: [15], says: 'bring the checklist to the design review', owner: 'Priya Raman' },
      { lines: [19], says: 'search v2 release behind the flag', owner: 'Daniel Okafor', due: '2026-01-30' },
      {
        lines: [19],
        says: "separate the indexer's connection pool",
        owner: 'Daniel Okafor',
        due: '2026-01-16',
      },
      { lines: [19], says: 'update the roadmap page', owner: 'Maya Chen', due: '2026-01-05' },
      { lines: [21], says: 'answer the maintenance-window question', owner: 'Daniel Okafor' },
    ],
    questions: [
      { lines: [3], says: 'how long a reindex takes for a big customer', answered: true },
      { lines: [6], says: 'suggest related channels in the empty state', answered: true },
      { lines: [20], says: 'maintenance window for the Northwind reindex', answered: false },
    ],
  },
  'design-review-onboarding': {
    decisions: [
      { lines: [21], says: 'guided setup approved as a candidate; checklist to settings if it wins' },
    ],
    actionItems: [
      { lines: [22], says: 'write up the findings with clips', owner: 'Priya Raman', due: '2026-01-16' },
      { lines: [22], says: 'question and summary screens', owner: 'Jonas Weber', due: '2026-01-21' },
      {
        lines: [15, 22],
        says: 'propose the experiment at the sync',
        owner: 'Priya Raman',
        due: '2026-01-22',
      },
      {
        lines: [23],
        says: 'talk to support about a checklist reference page',
        owner: 'Maya Chen',
        due: '2026-01-20',
      },
    ],
    questions: [
      { lines: [4], says: 'were these all small teams', answered: true },
      { lines: [12], says: 'keep a small checklist inside settings', answered: true },
      { lines: [19], says: 'are generated names editable inline', answered: true },
      { lines: [24], says: 'show the guided setup to existing workspaces', answered: false },
    ],
  },
  'weekly-sync-2': {
    decisions: [{ lines: [14], says: 'search v2 moves to February 13, reindex batched at night' }],
    actionItems: [
      {
        lines: [14, 18],
        says: 'update the roadmap and email the customers',
        owner: 'Maya Chen',
        due: '2026-01-14',
      },
      { lines: [18], says: 'prepare the night batch job', owner: 'Daniel Okafor', due: '2026-01-23' },
      { lines: [18], says: 'alerting on the batch', owner: 'Tom Becker', due: '2026-01-26' },
      { lines: [18], says: 'help article on the new search', owner: 'Lena Fischer', due: '2026-02-06' },
      // Added on review of the first scoring: a commitment with a day that the first labelling missed.
      {
        lines: [17],
        says: 'present the onboarding findings at the design review',
        owner: 'Priya Raman',
        due: '2026-01-15',
      },
    ],
    questions: [
      { lines: [7], says: 'what are the options', answered: true },
      { lines: [12], says: 'does night batching work for operations', answered: true },
      { lines: [19], says: 'announce the new ranking or not', answered: false },
    ],
  },
  'incident-retro-search-outage': {
    decisions: [{ lines: [22], says: 'the batch does not start before the lock alert is live' }],
    actionItems: [
      {
        lines: [13],
        says: 'build indexes concurrently, with a CI check',
        owner: 'Daniel Okafor',
        due: '2026-01-23',
      },
      { lines: [15], says: 'lock panel and lock alert', owner: 'Tom Becker', due: '2026-01-21' },
      { lines: [16, 17], says: 'release checklist', owner: 'Aisha Mensah', due: '2026-01-19' },
      { lines: [18], says: 'status page rule in the on-call guide', owner: 'Tom Becker' },
    ],
    questions: [
      { lines: [5], says: 'when did we understand it was the migration', answered: true },
      { lines: [19], says: 'refresh staging with a production-sized dataset', answered: false },
      { lines: [20], says: 'who owns a production-sized staging dataset', answered: false },
      { lines: [21], says: 'should the night batch wait for the lock alert', answered: true },
    ],
  },
  'customer-call-northwind': {
    decisions: [{ lines: [20], says: 'channel export is the next feature after search' }],
    actionItems: [
      { lines: [13, 20], says: 'answer Sam on SAML single sign-on', owner: 'Maya Chen', due: '2026-02-03' },
      {
        lines: [18, 20],
        says: 'check the legal requirements for export',
        owner: 'Sam Whitfield',
        due: '2026-01-30',
      },
      { lines: [20], says: 'send the call notes and the help article', owner: 'Lena Fischer' },
      { lines: [22], says: 'confirm with engineering', owner: 'Maya Chen' },
    ],
    questions: [
      { lines: [1], says: 'how is the rollout going', answered: true },
      { lines: [11], says: 'which identity provider', answered: true },
      { lines: [17], says: 'would a channel download cover the legal case', answered: false },
      { lines: [21], says: 'will the new search rank channels a user does not follow', answered: false },
    ],
  },
  'weekly-sync-3': {
    decisions: [
      { lines: [10], says: 'announce the new ranking: changelog entry and one-time tooltip' },
      { lines: [16], says: 'run the onboarding experiment from February 16; checklist decision on hold' },
    ],
    actionItems: [
      {
        lines: [6, 19],
        says: 'automatic stop for the batch',
        owner: 'Daniel Okafor',
        due: ['2026-01-26', '2026-02-02'],
      },
      { lines: [10, 19], says: 'changelog entry', owner: 'Lena Fischer', due: '2026-02-11' },
      { lines: [10, 19], says: 'tooltip and guided setup', owner: 'Priya Raman', due: '2026-02-11' },
      { lines: [19], says: 'experiment plan with the success metric', owner: 'Maya Chen', due: '2026-02-04' },
    ],
    questions: [
      { lines: [4], says: 'widen the window', answered: true },
      { lines: [7], says: 'announce the new ranking or not', answered: true },
      { lines: [17], says: 'who reads the results', answered: true },
      { lines: [20], says: 'what happens to workspaces of the losing variant', answered: false },
    ],
  },
  'engineering-transcript-pipeline': {
    decisions: [{ lines: [14], says: 'move transcript processing to the database job queue' }],
    actionItems: [
      { lines: [16], says: 'queue worker and enqueue on upload', owner: 'Aisha Mensah', due: '2026-02-06' },
      { lines: [15, 16], says: 'queue depth and job age panels', owner: 'Tom Becker', due: '2026-02-04' },
      { lines: [16], says: 'clean up duplicate segments', owner: 'Daniel Okafor', due: '2026-01-30' },
    ],
    questions: [
      { lines: [9], says: 'how long would the queue take to drain', answered: true },
      { lines: [11], says: 'what about ordering', answered: true },
      { lines: [17], says: 'index updates in the same job or separate', answered: false },
      { lines: [19], says: 'how long to keep finished jobs', answered: true },
    ],
  },
};

export const GOLD_CONFLICTS: GoldConflict[] = [
  {
    about: 'the search v2 date',
    earlier: { file: 'weekly-sync-1', line: 8 },
    later: { file: 'weekly-sync-2', line: 14 },
  },
  {
    about: 'the onboarding checklist',
    earlier: { file: 'weekly-sync-1', line: 16 },
    later: { file: 'weekly-sync-3', line: 16 },
  },
];
