/**
 * `npm run dev`: the service (restarted when its code changes) and the web app with hot reload.
 * Open the web app's URL: Vite serves the pages and forwards API calls to the service.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'vite';

const api = spawn(process.execPath, ['--watch', 'src/server.ts'], { stdio: 'inherit', env: process.env });
const web = await createServer({ configFile: new URL('../web/vite.config.ts', import.meta.url).pathname });
await web.listen();
web.printUrls();

const stop = async () => {
  api.kill('SIGTERM');
  await web.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
api.on('exit', (code) => {
  if (code !== null && code !== 0) process.exitCode = code;
});
