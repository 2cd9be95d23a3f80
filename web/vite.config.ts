import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Paths of the API; in `npm run dev` Vite forwards them to the service, except page navigations. */
const API_PREFIXES = [
  '/auth',
  '/users',
  '/organizations',
  '/invitations',
  '/beta-access',
  '/videos',
  '/speakers',
  '/channels',
  '/series',
  '/collections',
  '/activity',
  '/clips',
  '/share-links',
  '/share',
  '/search',
  '/comments',
  '/notifications',
  '/ai',
  '/chat',
  '/topics',
  '/analytics',
  '/billing',
  '/integrations',
  '/docs',
  '/openapi.json',
  '/health',
];
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
  server: {
    port: 5173,
    proxy: Object.fromEntries(
      API_PREFIXES.map((prefix) => [
        prefix,
        {
          target: apiTarget,
          // A browser navigation to /videos/… is a page of the app, not a call to the API.
          bypass: (request: { headers: { accept?: string } }) =>
            request.headers.accept?.includes('text/html') ? '/index.html' : undefined,
        },
      ]),
    ),
  },
});
