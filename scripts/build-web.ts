/**
 * Builds the web app into web/dist, which the service serves at `/`. `npm install` runs it (the
 * `prepare` script), so `npm install && npm start` serves the app with no separate step.
 * An install without dev dependencies has no Vite: the service then serves the API alone.
 */
const vite = await import('vite').catch(() => null);
if (!vite) {
  process.stdout.write(
    'Vite is not installed (an install without dev dependencies): the web app is not built.\n',
  );
} else {
  await vite.build({
    configFile: new URL('../web/vite.config.ts', import.meta.url).pathname,
    logLevel: 'warn',
  });
  process.stdout.write('Web app built into web/dist.\n');
}
