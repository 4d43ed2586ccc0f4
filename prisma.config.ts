// Prisma CLI configuration. The URL is only used by CLI commands run by hand online; the bot
// itself connects through @prisma/adapter-pg and applies migrations with src/db/migrate.ts.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" },
});
