import type { Config } from '../../config.ts';
import { utcDay } from '../../lib/clock.ts';
import {
  type AnswerEngine,
  type AnswerInput,
  type Citation,
  citedIn,
  type EngineAnswer,
  MARKERS,
  notFound,
  type Source,
  unmentioned,
} from './engine.ts';
import { createOpenAiClient, createOpenAiEmbedder, providerError, toProviderError } from './openai-client.ts';

/** What the model replies, alone, when the sources do not answer the question. */
const NOT_FOUND_REPLY = 'NOT_FOUND';

const SYSTEM_PROMPT = [
  'You answer questions about meeting recordings using ONLY the numbered transcript sources given.',
  'Cite every claim with the number of the source it comes from in square brackets, e.g. [1] or [2][3].',
  'Never use outside knowledge and never cite a number that is not among the sources.',
  'Each source says the day its meeting was held: when sources of different days disagree, say which was said when.',
  `When the sources do not answer the question, reply exactly ${NOT_FOUND_REPLY} and nothing else.`,
  'When the question names something no recording mentions (listed after it), say so first.',
].join('\n');

function userPrompt(question: string, sources: Source[], unsaid: string[]): string {
  const passages = sources.map(
    (source) =>
      `[${source.number}] ${source.videoTitle} (held ${utcDay(source.recordedAt)}; ${source.startSeconds}–${source.endSeconds} s, ` +
      `${source.speakerNames.join(', ') || 'unknown speakers'}):\n${source.text}`,
  );
  const never = unsaid.length > 0 ? `\n${unmentioned(unsaid)}` : '';
  return `Sources:\n\n${passages.join('\n\n')}\n\nQuestion: ${question}${never}`;
}

const SENTENCE_BREAK = /(?<=[.!?])\s+/;

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Sentences of the reply; a piece that is only markers ("… May. [1]") belongs to the one before. */
function answerSentences(answer: string): string[] {
  const sentences: string[] = [];
  for (const piece of answer.split(SENTENCE_BREAK)) {
    if (!piece.trim()) continue;
    const previous = sentences.length - 1;
    if (previous >= 0 && piece.replace(MARKERS, '').trim() === '') sentences[previous] += ` ${piece}`;
    else sentences.push(piece);
  }
  return sentences;
}

/** Drops markers of sources not given: `[1, 7]` → `[1]`, `[7]` → nothing. */
const keepKnownMarkers = (text: string, known: Set<number>) =>
  text.replace(MARKERS, (_, numbers: string) =>
    numbers
      .split(',')
      .map(Number)
      .filter((number) => known.has(number))
      .map((number) => `[${number}]`)
      .join(''),
  );

/** Drops markers of sources not given, and the space they leave. */
const withoutUnknownMarkers = (reply: string, known: Set<number>) =>
  keepKnownMarkers(reply, known)
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();

/** The source's sentences, each a verbatim slice of its text, with who said it. */
function sourceSentences(source: Source): { text: string; speaker: string | null }[] {
  return source.text.split('\n').flatMap((line) => {
    const speaker = source.speakerNames.find((name) => line.startsWith(`${name}: `)) ?? null;
    const said = speaker ? line.slice(speaker.length + 2) : line;
    return said
      .split(SENTENCE_BREAK)
      .map((text) => text.trim())
      .filter(Boolean)
      .map((text) => ({ text, speaker }));
  });
}

/** The sentence of the source that shares most words with the answer's sentences citing it. */
function quoteFor(source: Source, citingSentences: string[]) {
  const said = citingSentences.map((sentence) => wordsOf(sentence.replace(MARKERS, '')));
  let best: { text: string; speaker: string | null } | undefined;
  let bestShared = -1;
  for (const sentence of sourceSentences(source)) {
    const words = wordsOf(sentence.text);
    const shared = Math.max(...said.map((answer) => [...words].filter((word) => answer.has(word)).length));
    if (shared > bestShared) {
      best = sentence;
      bestShared = shared;
    }
  }
  return best;
}

/** The model's reply as an answer: only markers of given sources survive, each backed by a quote. */
export function parseReply(reply: string, sources: Source[], unsaid: string[] = []): EngineAnswer {
  if (reply.trim().startsWith(NOT_FOUND_REPLY)) return notFound(unsaid);
  const byNumber = new Map(sources.map((source) => [source.number, source]));
  const answer = withoutUnknownMarkers(reply, new Set(byNumber.keys()));
  const sentences = answerSentences(answer);
  const citing = new Map<number, string[]>();
  for (const sentence of sentences) {
    for (const number of citedIn(sentence)) citing.set(number, [...(citing.get(number) ?? []), sentence]);
  }
  const citations: Citation[] = [];
  for (const [number, citingSentences] of [...citing].sort(([a], [b]) => a - b)) {
    const source = byNumber.get(number) as Source;
    const quote = quoteFor(source, citingSentences);
    if (!quote) continue;
    citations.push({
      source: number,
      videoId: source.videoId,
      videoTitle: source.videoTitle,
      heldAt: source.recordedAt.toISOString(),
      start: source.startSeconds,
      end: source.endSeconds,
      speaker: quote.speaker ?? source.speakerNames[0] ?? null,
      quote: quote.text,
    });
  }
  if (citations.length === 0) return notFound(unsaid);
  const cited = new Set(citations.map((citation) => citation.source));
  const supported = sentences.filter((sentence) => citedIn(sentence).some((number) => cited.has(number)));
  return {
    answer,
    answered: true,
    confidence: Math.round((supported.length / sentences.length) * 1000) / 1000,
    citations,
  };
}

export type OpenAiEngine = AnswerEngine & Pick<Required<AnswerEngine>, 'answerStream'>;

/** A `[` this far back with no `]` after it opens no marker: its text can go out. */
const LONGEST_MARKER = 16;

/**
 * Passes the model's tokens on as they come, as the final answer will read: a reply that may
 * still become NOT_FOUND is held back, and a marker is held until it closes so that markers of
 * sources not given never reach the caller.
 */
function tokenFilter(known: Set<number>, onToken: (text: string) => void) {
  let pending = '';
  let reply: 'undecided' | 'not found' | 'answer' = 'undecided';
  const release = (text: string) => {
    const kept = keepKnownMarkers(text, known);
    if (kept) onToken(kept);
  };
  return {
    push(token: string) {
      pending += token;
      if (reply === 'undecided') {
        const start = pending.trimStart();
        if (start.startsWith(NOT_FOUND_REPLY)) reply = 'not found';
        else if (!NOT_FOUND_REPLY.startsWith(start)) reply = 'answer';
      }
      if (reply !== 'answer') return;
      const open = pending.lastIndexOf('[');
      const cut =
        open >= 0 && !pending.includes(']', open) && pending.length - open < LONGEST_MARKER
          ? open
          : pending.length;
      release(pending.slice(0, cut));
      pending = pending.slice(cut);
    },
    end() {
      if (reply === 'answer') release(pending);
      pending = '';
    },
  };
}

/**
 * An engine backed by any OpenAI-compatible endpoint (AI_BASE_URL): the model writes the answer
 * from the numbered sources; the engine keeps only what it can tie to a source, quoted verbatim.
 */
export function createOpenAiEngine(settings: Config['ai']): OpenAiEngine {
  const client = createOpenAiClient(settings);
  const model = settings.model as string;
  const messages = ({ question, sources, unsaid = [] }: AnswerInput) => [
    { role: 'system' as const, content: SYSTEM_PROMPT },
    { role: 'user' as const, content: userPrompt(question, sources, unsaid) },
  ];
  const failed = (error: unknown) => toProviderError(error, settings.timeoutMs);

  const engine: OpenAiEngine = {
    name: 'openai',
    async answer(input) {
      const { sources, unsaid } = input;
      if (sources.length === 0) return notFound(unsaid);
      let reply: unknown;
      try {
        const completion = await client.chat.completions.create({
          model,
          messages: messages(input),
        });
        reply = completion.choices?.[0]?.message?.content;
      } catch (error) {
        throw failed(error);
      }
      if (typeof reply !== 'string') throw providerError('malformed response');
      return parseReply(reply, sources, unsaid);
    },
    async answerStream(input, onToken) {
      const { sources, unsaid } = input;
      if (sources.length === 0) return notFound(unsaid);
      let reply = '';
      const tokens = tokenFilter(new Set(sources.map((source) => source.number)), onToken);
      try {
        const stream = await client.chat.completions.create({
          model,
          messages: messages(input),
          stream: true,
        });
        for await (const chunk of stream) {
          const token = chunk.choices?.[0]?.delta?.content;
          if (!token) continue;
          reply += token;
          tokens.push(token);
        }
        tokens.end();
      } catch (error) {
        throw failed(error);
      }
      return parseReply(reply, sources, unsaid);
    },
  };
  const embed = createOpenAiEmbedder(settings, client);
  return embed ? { ...engine, embed } : engine;
}
