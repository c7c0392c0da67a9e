/** Opens a workspace database: WAL, foreign keys, and the migrations it has not seen yet. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { GeolabError } from '../core/errors.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;
export type Statement = Database.Statement;

export function openDatabase(file: string, migrations: readonly string[] = MIGRATIONS): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  return db;
}

/** Brings the schema to the newest version; a database newer than this build is refused. */
export function migrate(db: Db, migrations: readonly string[] = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new GeolabError(
      `workspace database is at schema version ${current}, newer than this geolab (${migrations.length}): upgrade geolab`,
    );
  }
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return migrations.length;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}
