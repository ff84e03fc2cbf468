/**
 * Versioned schema migrations of the /pulse store: `migrations/<dialect>/NNN_name.sql`, applied
 * in order, each once, recorded in `pulse_migrations`. To change the schema, add the next file
 * for both dialects; never edit one that shipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dialect: 'sqlite' | 'postgres'): Migration[] {
  const dir = join(import.meta.dirname, 'migrations', dialect);
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file.slice(4, -4), sql: readFileSync(join(dir, file), 'utf8') }));
}
