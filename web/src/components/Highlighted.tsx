const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#x27;': "'",
};
const decodeEntities = (text: string) =>
  text.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity] ?? entity);

/** A snippet's parts: text and marked matches in turn, each keyed by where it starts. */
export function snippetParts(snippet: string) {
  let offset = 0;
  return snippet.split(/<mark>|<\/mark>/).map((part, index) => {
    const piece = { key: `${offset}`, marked: index % 2 === 1, text: decodeEntities(part) };
    offset += part.length + 6;
    return piece;
  });
}

/**
 * A search snippet: the API escapes the text and marks matches with `<mark>`. It is rebuilt as
 * text and <mark> elements, never as HTML, so nothing in a transcript can become markup.
 */
export function Highlighted({ snippet }: { snippet: string }) {
  return (
    <>
      {snippetParts(snippet).map((part) =>
        part.marked ? <mark key={part.key}>{part.text}</mark> : <span key={part.key}>{part.text}</span>,
      )}
    </>
  );
}
