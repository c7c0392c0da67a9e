/**
 * Opens a workspace database: WAL, foreign keys, and the migrations it has not seen yet. Several
 * geolab processes may open one workspace at once, so a schema change happens only inside a write
 * transaction (BEGIN IMMEDIATE) that re-reads the schema version it starts from.
 */
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { GeolabError } from '../core/errors.js';
import { ensureWritableDirectory } from '../files.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { busyTimeoutS } from './workspace.js';
import { sqliteModule } from '../vendor/commonjs.js';

export type Db = Database.Database;
export type Statement = Database.Statement;
/** A function wrapped by db.transaction(): call it with `.immediate()` when it reads before it writes (see beginWrite). */
export type Transaction<F extends (...args: never[]) => unknown> = Database.Transaction<F>;

/** A connection with the workspace's settings (busy wait: busyTimeoutS()) and no migration run. */
export function connect(file: string): Db {
  if (file !== ':memory:') ensureWritableDirectory(dirname(file), 'workspace directory', 'choose another with --workspace or GEOLAB_HOME');
  // The busy timeout comes first: switching a new file to WAL needs a lock another opener may hold.
  const db = new (sqliteModule())(file, { timeout: busyTimeoutS() * 1000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = connect(file);
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Brings the schema to the newest version; a database newer than this build is refused. */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number {
  if (checkedVersion(db, migrations) < migrations.length) db.transaction(() => applyMigrations(db, migrations)).immediate();
  return migrations.length;
}

/**
 * Like migrate, and when the schema is new (version 0) runs `seed` in the same write transaction, so
 * a workspace is seen either empty or migrated and seeded, and only the first of several processes
 * opening it at once seeds it. Returns whether this call created the schema.
 */
export async function migrateAndSeed(db: Db, migrations: readonly Migration[], seed: () => Promise<void>): Promise<boolean> {
  if (checkedVersion(db, migrations) === migrations.length) return false;
  const write = beginWrite(db);
  try {
    const from = applyMigrations(db, migrations);
    if (from === 0) await seed();
    write.commit();
    return from === 0;
  } catch (err) {
    write.rollback();
    throw err;
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export interface WriteTransaction {
  commit(): void;
  rollback(): void;
}

let savepoints = 0;

/**
 * A write transaction that may span awaits (better-sqlite3's transaction() cannot): BEGIN IMMEDIATE,
 * or a savepoint when a transaction is already open on the connection, such as the seeding one.
 */
export function beginWrite(db: Db): WriteTransaction {
  if (!db.inTransaction) {
    db.exec('BEGIN IMMEDIATE');
    // SQLite itself ends the transaction on some errors (a full disk, an I/O error).
    return {
      commit: () => db.exec('COMMIT'),
      rollback: () => {
        if (db.inTransaction) db.exec('ROLLBACK');
      },
    };
  }
  const name = `write_${++savepoints}`;
  db.exec(`SAVEPOINT ${name}`);
  return {
    commit: () => db.exec(`RELEASE ${name}`),
    rollback: () => {
      if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
    },
  };
}

/** The version read without a lock: enough to skip the write lock when nothing is to be done. */
function checkedVersion(db: Db, migrations: readonly Migration[]): number {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    throw new GeolabError(
      `workspace database is at schema version ${current}, newer than this geolab (${migrations.length}): upgrade geolab`,
    );
  }
  return current;
}

/** Inside a write transaction: re-reads the version (another process may have migrated) and applies the rest. */
function applyMigrations(db: Db, migrations: readonly Migration[]): number {
  const from = checkedVersion(db, migrations);
  for (let version = from; version < migrations.length; version++) {
    const migration = migrations[version] as Migration;
    if (typeof migration === 'string') db.exec(migration);
    else migration(db);
    db.pragma(`user_version = ${version + 1}`);
  }
  return from;
}
