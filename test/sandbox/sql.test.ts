// The sandbox's SQLite layer on node:sqlite: the settings a store opens with,
// transactions (write lock at BEGIN, savepoints, rollback on throw), two
// connections opening one new file, the read-only inspection `mfg doctor`
// uses, and the ExperimentalWarning Node 22 prints when node:sqlite loads.
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

import {openSeededStore, seedStore} from '../../src/sandbox/index.js'
import {DB_FILE_NAME, openStore} from '../../src/sandbox/store/index.js'
import {inspectDatabase} from '../../src/sandbox/store/integrity.js'
import {SCHEMA_VERSION} from '../../src/sandbox/store/schema.js'
import {nodeSqliteDriver, scalar, sqliteCode, transaction, type SqlDatabase} from '../../src/sandbox/store/sql.js'
import {useTempDirs} from '../helpers/temp.js'

const root = resolve(import.meta.dirname, '../..')
const tempDir = useTempDirs('mfg-sql-')

const count = (db: SqlDatabase): number => Number(scalar(db, 'SELECT COUNT(*) FROM t'))

function scratchDb(): SqlDatabase {
  const db = nodeSqliteDriver.open(':memory:')
  db.exec('CREATE TABLE t (n INTEGER NOT NULL)')
  return db
}

/** What a statement threw, for asserting on it. */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('a store opens with', () => {
  it('WAL, synchronous NORMAL, foreign keys and a 5 s busy timeout for a file', () => {
    const store = openStore({dataDir: tempDir()})
    try {
      expect(scalar(store.db, 'PRAGMA journal_mode')).toBe('wal')
      expect(scalar(store.db, 'PRAGMA synchronous')).toBe(1)
      expect(scalar(store.db, 'PRAGMA foreign_keys')).toBe(1)
      expect(scalar(store.db, 'PRAGMA busy_timeout')).toBe(5000)
      expect(scalar(store.db, 'PRAGMA user_version')).toBe(SCHEMA_VERSION)
      const orphan = thrown(() =>
        store.db
          .prepare('INSERT INTO api_keys (key, business_id, created_at) VALUES (?, ?, ?)')
          .run('k', 'nobody', 'x'),
      )
      expect(sqliteCode(orphan)).toBe('SQLITE_CONSTRAINT')
    } finally {
      store.close()
    }
  })

  it('foreign keys and the busy timeout in memory too', () => {
    const store = openStore({memory: true})
    try {
      expect(scalar(store.db, 'PRAGMA foreign_keys')).toBe(1)
      expect(scalar(store.db, 'PRAGMA busy_timeout')).toBe(5000)
      expect(scalar(store.db, 'PRAGMA journal_mode')).toBe('memory')
    } finally {
      store.close()
    }
  })
})

describe('transaction', () => {
  it('commits what fn did and answers its value', () => {
    const db = scratchDb()
    expect(transaction(db, () => db.prepare('INSERT INTO t VALUES (?)').run(1).changes)).toBe(1)
    expect(count(db)).toBe(1)
    db.close()
  })

  it('rolls everything back when fn throws, and rethrows; the connection stays usable', () => {
    const db = scratchDb()
    const boom = new Error('boom')
    expect(
      thrown(() =>
        transaction(db, () => {
          db.prepare('INSERT INTO t VALUES (?)').run(1)
          throw boom
        }),
      ),
    ).toBe(boom)
    expect(count(db)).toBe(0)
    transaction(db, () => db.prepare('INSERT INTO t VALUES (?)').run(2))
    expect(count(db)).toBe(1)
    db.close()
  })

  it('makes a nested call a savepoint: an inner failure the caller catches undoes only the inner work', () => {
    const db = scratchDb()
    transaction(db, () => {
      db.prepare('INSERT INTO t VALUES (?)').run(1)
      const inner = thrown(() =>
        transaction(db, () => {
          db.prepare('INSERT INTO t VALUES (?)').run(2)
          throw new Error('inner')
        }),
      )
      expect((inner as Error).message).toBe('inner')
      transaction(db, () => db.prepare('INSERT INTO t VALUES (?)').run(3))
    })
    expect(db.prepare('SELECT n FROM t ORDER BY n').all()).toEqual([{n: 1}, {n: 3}])
    // An inner failure that is not caught undoes the whole transaction.
    thrown(() =>
      transaction(db, () => {
        db.prepare('INSERT INTO t VALUES (?)').run(4)
        transaction(db, () => {
          throw new Error('inner')
        })
      }),
    )
    expect(count(db)).toBe(2)
    db.close()
  })

  it('refuses an async fn and rolls back what it did before its first await', () => {
    const db = scratchDb()
    const error = thrown(() =>
      transaction(db, async () => {
        db.prepare('INSERT INTO t VALUES (?)').run(1)
      }),
    )
    expect(error).toBeInstanceOf(TypeError)
    expect(count(db)).toBe(0)
    db.close()
  })

  it('immediate takes the write lock at BEGIN; deferred takes none until it writes', () => {
    const dir = tempDir()
    const store = openStore({dataDir: dir})
    const other = nodeSqliteDriver.open(join(dir, DB_FILE_NAME))
    try {
      other.exec('PRAGMA busy_timeout = 0')
      const beginElsewhere = () => {
        other.exec('BEGIN IMMEDIATE')
        other.exec('ROLLBACK')
      }
      store.transaction(() => {
        expect(sqliteCode(thrown(beginElsewhere))).toBe('SQLITE_BUSY')
      })
      transaction(store.db, () => {
        beginElsewhere()
      })
      // Readers are never blocked by the writer (WAL).
      store.transaction(() => {
        expect(Number(scalar(other, 'SELECT COUNT(*) FROM businesses'))).toBe(0)
      })
    } finally {
      other.close()
      store.close()
    }
  })
})

describe('two connections opening one new file at once', () => {
  it('both see it new; seeding under the write lock seeds it once, and both read the same businesses', () => {
    const dir = tempDir()
    const a = openStore({dataDir: dir})
    const b = openStore({dataDir: dir})
    try {
      expect([a.fresh, b.fresh]).toEqual([true, true])
      seedStore(a)
      seedStore(b)
      expect(b.businesses.all()).toHaveLength(2)
      expect(b.businesses.all()).toEqual(a.businesses.all())
      expect(b.businesses.apiKeys(b.businesses.all()[0]!.id)).toHaveLength(1)
    } finally {
      a.close()
      b.close()
    }
  })
})

describe('inspectDatabase (mfg doctor)', () => {
  it('reads a sound database without changing it', () => {
    const dir = tempDir()
    openSeededStore({dataDir: dir}).close()
    const file = join(dir, DB_FILE_NAME)
    const bytes = readFileSync(file)
    expect(inspectDatabase(file)).toEqual({
      quickCheck: ['ok'],
      integrityCheck: ['ok'],
      schemaVersion: SCHEMA_VERSION,
      expectedSchemaVersion: SCHEMA_VERSION,
    })
    // The file is as it was, and nothing waits in the write-ahead log (SQLite leaves an empty one).
    expect(readFileSync(file).equals(bytes)).toBe(true)
    expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0)
  })

  it("names SQLite's reason in the error's code: not a database, cannot open (and creates nothing)", () => {
    const dir = tempDir()
    const text = join(dir, 'text.db')
    writeFileSync(text, 'not a database, only text: '.repeat(40))
    const notDb = thrown(() => inspectDatabase(text)) as {code?: string; message: string}
    expect(notDb.code).toBe('SQLITE_NOTADB')
    expect(notDb.message).toMatch(/not a database/)
    const missing = join(dir, 'missing.db')
    expect((thrown(() => inspectDatabase(missing)) as {code?: string}).code).toBe('SQLITE_CANTOPEN')
    expect(existsSync(missing)).toBe(false)
  })
})

describe('loading node:sqlite', () => {
  it("keeps Node 22's ExperimentalWarning for SQLite off stderr, and every other warning on it", () => {
    const script = [
      "const {nodeSqliteDriver} = await import('./src/sandbox/store/sql.ts')",
      'const before = process.emitWarning',
      "nodeSqliteDriver.open(':memory:').close()",
      "if (process.emitWarning !== before) throw new Error('process.emitWarning was not restored')",
      "process.emitWarning('another feature is experimental', 'ExperimentalWarning')",
      "process.emitWarning('SQLite is an experimental feature, said again later', 'ExperimentalWarning')",
    ].join('\n')
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/SQLite is an experimental feature and might change/)
    expect(r.stderr).toMatch(/ExperimentalWarning: another feature is experimental/)
    // The filter lives only while node:sqlite loads: later warnings pass, whatever they say.
    expect(r.stderr).toMatch(/ExperimentalWarning: SQLite is an experimental feature, said again later/)
  })
})
