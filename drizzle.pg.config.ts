import { defineConfig } from 'drizzle-kit'

/** The PostgreSQL schema: drizzle-kit reads only the schema file; migrations ship in the package. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/backends/postgres/schema.ts',
  out: './migrations-pg',
})
