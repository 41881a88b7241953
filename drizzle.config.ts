import { defineConfig } from 'drizzle-kit'

/** drizzle-kit reads only the schema file; migrations ship in the package. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './migrations',
})
