/** Only paths of this app: a `next` pointing elsewhere (`//evil.example`, `https://…`) is ignored. */
export function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
