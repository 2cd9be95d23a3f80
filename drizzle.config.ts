import { defineConfig } from 'drizzle-kit';

// Only `npm run db:generate` reads this file: it turns the schema into SQL migrations under src/db/migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
});
