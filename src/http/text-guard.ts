import type { FastifyInstance } from 'fastify';
import { errors } from './errors.ts';

/**
 * Text no column can keep: PostgreSQL refuses the NUL character in text, and an unpaired UTF-16
 * surrogate (`"\ud800"` in JSON) in JSON columns. Refused for the whole app before validation,
 * with the path of the first offending string, so that no route can fail on it later.
 */
const MESSAGE = 'must not contain NUL characters or unpaired surrogates';

const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * The path of the first string (value or object key) that cannot be stored, walked without
 * recursion: a deeply nested body cannot exhaust the stack.
 */
export function unstorableTextPath(value: unknown, root: string): string | null {
  const pending: Array<[unknown, string]> = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'string') {
      if (unstorable(current)) return path;
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        pending.push([current[index], `${path}.${index}`]);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, inner] of Object.entries(current)) {
        if (unstorable(key)) return path;
        pending.push([inner, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/** Refuses (400, naming the first offending path) a value holding text no column can keep. */
export function assertStorable(value: unknown, root: string) {
  const path = unstorableTextPath(value, root);
  if (path) throw errors.validation([{ path, message: MESSAGE }]);
}

export function registerTextGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    // A path segment that cannot be stored names nothing: answered as for an unknown id.
    if (unstorableTextPath(request.params, 'params')) throw errors.notFound();
    assertStorable(request.query, 'querystring');
    assertStorable(request.body, 'body');
  });
}
