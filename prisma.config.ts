import { defineConfig } from 'prisma/config';

// Prisma 7 reads the connection string from here, not from schema.prisma. The gateway itself
// connects through @prisma/adapter-pg with the URL it resolves at boot (external or embedded).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations', seed: 'node dist/cli/main.js db seed' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/gateway' },
});
