import type OpenAI from 'openai';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Chapter, KnowledgeQuote } from '../../db/schema/knowledge.ts';
import { createOpenAiClient, providerError, toProviderError } from '../ai/openai-client.ts';
import { splitSentences } from '../ai/sentences.ts';
import type { ExtractedItem, ExtractedTopic, Extraction, KnowledgeExtractor } from './extraction.ts';
import { dueDateIn } from './nlp/dates.ts';
import { analyse, type Document, type Sentence } from './nlp/document.ts';
import { CALENDAR_WORDS } from './nlp/lexicon.ts';
import { commonest, mentionsIn, surfaceOf } from './nlp/phrases.ts';
import { contentStems, subjectOf, tokenize } from './nlp/text.ts';
import {
  EXTRACTION_PROMPT,
  type ExtractionReply,
  extractionReply,
  extractionRequest,
  type NumberedTurn,
  parseReply,
  reminder,
  SUMMARY_PROMPT,
  summaryReply,
  summaryRequest,
  WINDOW_WORDS,
  windowsOf,
} from './openai-prompt.ts';

/** A quote shorter than this ("we", "okay then") is found in any transcript and proves nothing. */
const MIN_QUOTE_WORDS = 3;
const MAX_SUMMARY_SENTENCES = 6;
const MAX_TOPICS = 10;
const MAX_KEYWORDS = 8;

type Options = {
  /** Words per request; tests make it small to see a transcript split. */ windowWords?: number;
};
type Turns = Map<number, NumberedTurn>;
type Located = { text: string; start: number; end: number };
type SummarySentence = KnowledgeQuote & { turn: number };

/**
 * Knowledge extraction by a model behind any OpenAI-compatible endpoint (AI_PROVIDER=openai). The
 * model reads numbered turns and names the turn behind everything it reports; only what can be
 * checked against that turn is kept: items are the transcript's own words (a quote not found in its
 * turn is dropped), owners are people of the meeting, due dates are resolved from the words said.
 */
export function createOpenAiExtractor(settings: Config['ai'], options: Options = {}): KnowledgeExtractor {
  const client = createOpenAiClient(settings);
  const model = settings.model as string;
  const windowWords = options.windowWords ?? WINDOW_WORDS;

  /** One JSON request; a reply that does not parse gets one reminder, then the extraction fails. */
  async function ask<T>(system: string, user: string, schema: z.ZodType<T>): Promise<T> {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ];
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      let reply: unknown;
      try {
        const completion = await client.chat.completions.create({
          model,
          messages,
          response_format: { type: 'json_object' },
        });
        reply = completion.choices?.[0]?.message?.content;
      } catch (error) {
        throw toProviderError(error, settings.timeoutMs);
      }
      const parsed = parseReply(reply, schema);
      if (parsed.ok) return parsed.value;
      problem = parsed.problem;
      messages.push(
        { role: 'assistant', content: typeof reply === 'string' ? reply : '' },
        { role: 'user', content: reminder(problem) },
      );
    }
    throw providerError(`the reply was not the JSON asked for, even after a reminder (${problem})`);
  }

  return {
    name: 'openai',
    async extract({ title, turns, meetingDate }) {
      const said = turns
        .filter((turn) => turn.text.trim() !== '')
        .map((turn, position) => ({ ...turn, number: position + 1 }));
      const first = said[0];
      const last = said.at(-1);
      if (!first || !last) {
        const whole =
          turns.length > 0 ? [{ title, start: turns[0]?.start ?? 0, end: turns.at(-1)?.end ?? 0 }] : [];
        return { summary: [], chapters: whole, items: [], topics: [] };
      }
      const windows = windowsOf(said, windowWords);
      const replies: ExtractionReply[] = [];
      for (const [index, window] of windows.entries()) {
        const request = extractionRequest({ title, meetingDate }, window, { index, of: windows.length });
        replies.push(await ask(EXTRACTION_PROMPT, request, extractionReply));
      }
      const meeting = groundingFor(said, meetingDate);
      const grounded = windows.map((window, index) =>
        meeting.ground(replies[index] as ExtractionReply, new Map(window.map((turn) => [turn.number, turn]))),
      );

      // Several windows: one short request turns their summaries into the meeting's, citing their turns.
      const sentences = grounded.flatMap((window) => window.summary);
      const summary =
        grounded.length === 1 || sentences.length === 0
          ? sentences
          : summaryOf(
              (await ask(SUMMARY_PROMPT, summaryRequest(title, sentences), summaryReply)).summary,
              new Map(sentences.map((sentence) => [sentence.turn, meeting.turn(sentence.turn)])),
            );
      return {
        summary: summary.map(({ turn: _, ...quote }) => quote),
        chapters: chaptersOf(
          grounded.flatMap((window) => window.chapters),
          title,
          first.start,
          last.end,
        ),
        items: distinctItems(grounded.flatMap((window) => window.items)),
        topics: meeting.topics(grounded.flatMap((window) => window.topics)),
      } satisfies Extraction;
    },
  };
}

const asPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/['’]/g, "['’]");
const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * Where a phrase is said in a text, ignoring case and spacing, as whole words: the text's own
 * characters and their range.
 */
function findVerbatim(text: string, phrase: string, caseSensitive = false) {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const before = /^[\p{L}\p{N}]/u.test(phrase.trim()) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = /[\p{L}\p{N}]$/u.test(phrase.trim()) ? '(?![\\p{L}\\p{N}])' : '';
  const pattern = new RegExp(
    `${before}${words.map(asPattern).join('\\s+')}${after}`,
    caseSensitive ? 'u' : 'iu',
  );
  const match = pattern.exec(text);
  return match ? { text: match[0], from: match.index, to: match.index + match[0].length } : null;
}

/** The quote as said in the turn, timed by the sentence(s) it falls in; null when the turn does not say it. */
function locate(turn: NumberedTurn, quote: string, minWords = MIN_QUOTE_WORDS): Located | null {
  if (wordsIn(quote) < minWords) return null;
  const found = findVerbatim(turn.text, quote);
  if (!found) return null;
  let cursor = 0;
  const covering = splitSentences(turn).filter((sentence) => {
    const offset = turn.text.indexOf(sentence.text, cursor);
    cursor = offset + sentence.text.length;
    return offset < found.to && cursor > found.from;
  });
  const [from, to] = [covering[0], covering.at(-1)];
  return { text: found.text, start: from?.start ?? turn.start, end: to?.end ?? turn.end };
}

const quoteOfTurn = (turn: NumberedTurn, text: string): SummarySentence => ({
  text,
  start: turn.start,
  end: turn.end,
  speaker: turn.speaker,
  turn: turn.number,
});

/** The model's own sentences, each cited at the turn it names; a sentence naming no known turn goes. */
function summaryOf(sentences: ExtractionReply['summary'], turns: Turns): SummarySentence[] {
  return sentences
    .flatMap(({ turn: number, text }) => {
      const turn = turns.get(number);
      return turn && text.trim() ? [quoteOfTurn(turn, text.trim())] : [];
    })
    .sort((a, b) => a.start - b.start)
    .slice(0, MAX_SUMMARY_SENTENCES);
}

type ChapterStart = { title: string; turn: NumberedTurn };

/** Ordered and contiguous from the first turn to the last; a repeated start or title adds nothing. */
function chaptersOf(starts: ChapterStart[], title: string, start: number, end: number): Chapter[] {
  const kept: ChapterStart[] = [];
  for (const chapter of [...starts].sort((a, b) => a.turn.number - b.turn.number)) {
    const previous = kept.at(-1);
    if (previous?.turn.number === chapter.turn.number) continue;
    if (previous?.title.toLowerCase() === chapter.title.toLowerCase()) continue;
    kept.push(chapter);
  }
  if (kept.length === 0) return [{ title, start, end }];
  return kept.map((chapter, index) => ({
    title: chapter.title,
    start: index === 0 ? start : chapter.turn.start,
    end: kept[index + 1]?.turn.start ?? end,
  }));
}

/** Items in time order; the same words reported twice (a decision that is also a task) count once. */
function distinctItems(items: ExtractedItem[]): ExtractedItem[] {
  const seen = new Set<string>();
  return items
    .filter((item) => {
      const key = `${item.start}|${item.text.toLowerCase()}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Everything that checks the model's reply against the whole meeting: its people, words and dates. */
function groundingFor(said: NumberedTurn[], meetingDate: Date) {
  const byNumber: Turns = new Map(said.map((turn) => [turn.number, turn]));
  const labels = [...new Set(said.map((turn) => turn.speaker).filter((label): label is string => !!label))];
  const transcript = said.map((turn) => turn.text).join('\n');
  let doc: Document | undefined;
  const analysed = () => {
    doc ??= analyse(said);
    return doc;
  };

  /** A speaker of the meeting ("Maria" is "Maria Lopez" when one label holds it), or a name said capitalised. */
  function ownerOf(owner: string | null | undefined): string | null {
    const name = owner?.trim();
    if (!name) return null;
    const lower = name.toLowerCase();
    const label = labels.find((candidate) => candidate.toLowerCase() === lower);
    if (label) return label;
    const holding = labels.filter((candidate) => candidate.toLowerCase().split(/\s+/).includes(lower));
    if (holding.length === 1) return holding[0] as string;
    const words = tokenize(name).filter((token) => /\p{L}/u.test(token.value));
    // "We", "I", "Friday": capitalised words that are no one.
    const isName = words.every(
      (token) => /^\p{Lu}/u.test(token.value) && token.content && !CALENDAR_WORDS.has(token.normal),
    );
    return words.length > 0 && isName && findVerbatim(transcript, name, true) ? name : null;
  }

  /** The date said in the turn: the model's "due" words when the turn says them, else the quote's own. */
  function dueDateOf(turn: NumberedTurn, due: string | null | undefined, quote: string): string | null {
    const words = due ? findVerbatim(turn.text, due) : null;
    return (words && dueDateIn(words.text, meetingDate)) ?? dueDateIn(quote, meetingDate);
  }

  function answerIn(
    question: NumberedTurn,
    number: number | null | undefined,
    window: Turns,
  ): KnowledgeQuote | null {
    const turn = number === null || number === undefined ? undefined : window.get(number);
    if (!turn || turn.number <= question.number) return null;
    if (question.speaker !== null && turn.speaker === question.speaker) return null;
    const [first] = splitSentences(turn);
    return first
      ? { text: first.text, start: first.start, end: first.end, speaker: turn.speaker }
      : { text: turn.text.trim(), start: turn.start, end: turn.end, speaker: turn.speaker };
  }

  function item(kind: ExtractedItem['kind'], turn: NumberedTurn, at: Located): ExtractedItem {
    return {
      kind,
      ...at,
      speaker: turn.speaker,
      owner: null,
      dueDate: null,
      answered: null,
      answer: null,
      subject: subjectOf(at.text),
    };
  }

  /** One window's reply, keeping only what its own turns bear out. */
  function ground(reply: ExtractionReply, window: Turns) {
    const items: ExtractedItem[] = [];
    for (const task of reply.actionItems) {
      const turn = window.get(task.turn);
      const at = turn && locate(turn, task.quote);
      if (!turn || !at) continue;
      items.push({
        ...item('action_item', turn, at),
        owner: ownerOf(task.owner),
        dueDate: dueDateOf(turn, task.due, at.text),
      });
    }
    for (const decision of reply.decisions) {
      const turn = window.get(decision.turn);
      const at = turn && locate(turn, decision.quote);
      if (turn && at) items.push(item('decision', turn, at));
    }
    for (const question of reply.questions) {
      const turn = window.get(question.turn);
      const at = turn && locate(turn, question.quote);
      if (!turn || !at) continue;
      const answer = answerIn(turn, question.answeredByTurn, window);
      items.push({ ...item('question', turn, at), answered: answer !== null, answer });
    }
    const chapters = reply.chapters.flatMap(({ title, startTurn }) => {
      const turn = window.get(startTurn);
      return turn && title.trim() ? [{ title: title.trim(), turn }] : [];
    });
    return { summary: summaryOf(reply.summary, window), chapters, items, topics: reply.topics };
  }

  /** Topics merged by key, each kept only when the transcript says it; counted and named as said. */
  function topics(named: ExtractionReply['topics']): ExtractedTopic[] {
    const byKey = new Map<string, string[]>();
    for (const topic of named) {
      const key = topicKey(analysed(), topic.name);
      if (key) byKey.set(key, [...(byKey.get(key) ?? []), ...topic.keywords]);
    }
    const found = [...byKey].flatMap(([key, keywords]) => {
      const heard = occurrences(analysed(), key);
      const [earliest] = heard;
      if (!earliest) return [];
      const name = commonest(heard.map((mention) => mention.surface));
      return [
        {
          key,
          name,
          keywords: saidKeywords(keywords, name),
          mentions: heard.length,
          firstStart: earliest.start,
        },
      ];
    });
    found.sort((a, b) => b.mentions - a.mentions || a.key.localeCompare(b.key));
    const best = found[0]?.mentions ?? 1;
    return found
      .slice(0, MAX_TOPICS)
      .map((topic) => ({ ...topic, score: Math.round((topic.mentions / best) * 1000) / 1000 }));
  }

  function saidKeywords(keywords: string[], name: string): string[] {
    const kept = new Map<string, string>();
    for (const keyword of keywords) {
      const word = keyword.trim();
      const lower = word.toLowerCase();
      if (!word || lower === name.toLowerCase() || kept.has(lower)) continue;
      const found = findVerbatim(transcript, word);
      if (found) kept.set(lower, /^\p{Lu}/u.test(found.text) ? found.text : found.text.toLowerCase());
    }
    return [...kept.values()].slice(0, MAX_KEYWORDS);
  }

  return { ground, topics, turn: (number: number) => byNumber.get(number) as NumberedTurn };
}

/**
 * The key the local extractor gives the model's topic name, so that both merge into one topic: the
 * longest noun phrase `mentionsIn` finds in the name ("The remote controls" → `remot control`), or
 * its content stems when the tagger, reading the name out of context, finds no noun.
 */
function topicKey(doc: Document, name: string): string {
  const tokens = tokenize(name.trim());
  const sentence: Sentence = {
    turn: -1,
    order: -1,
    offset: 0,
    text: name,
    start: 0,
    end: 0,
    speaker: null,
    words: tokens.length,
    tokens,
    stems: contentStems(tokens),
  };
  const keys = mentionsIn(doc, sentence).map((mention) => mention.key);
  const longest = keys.reduce((best, key) => (wordsIn(key) > wordsIn(best) ? key : best), '');
  return longest || sentence.stems.join(' ');
}

/** Each time the transcript says the key's words in a row, with its surface form and time. */
function occurrences(doc: Document, key: string) {
  const words = key.split(' ');
  return doc.sentences.flatMap((sentence) =>
    sentence.tokens.flatMap((_, index) => {
      const run = sentence.tokens.slice(index, index + words.length);
      if (run.length < words.length || run.some((token, at) => token.stem !== words[at])) return [];
      return [{ surface: run.map(surfaceOf).join(' '), start: sentence.start }];
    }),
  );
}
