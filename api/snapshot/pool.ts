/**
 * A small pool of DuckDB connections to one snapshot's database. Each query holds a
 * connection of its own for its whole run, which is what makes the execution budget safe:
 * `connection.interrupt()` cancels the query running on that connection, so it must never be
 * a connection another request is using. Statements are prepared once per connection and
 * reused (the API's SQL is a handful of shapes), which saves DuckDB's parse and plan per call.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';

/** Returned instead of a result when the deadline passed before the query finished. */
export const OVER_BUDGET: unique symbol = Symbol('over budget');

const PREPARED_PER_CONNECTION = 128;

class PooledConnection {
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();
  constructor(readonly connection: DuckDBConnection) {}

  async statement(sql: string): Promise<DuckDBPreparedStatement> {
    const cached = this.prepared.get(sql);
    if (cached) {
      // Map order is insertion order: re-inserting keeps the most used at the end.
      this.prepared.delete(sql);
      this.prepared.set(sql, cached);
      return cached;
    }
    const statement = await this.connection.prepare(sql);
    this.prepared.set(sql, statement);
    if (this.prepared.size > PREPARED_PER_CONNECTION) {
      const [oldestSql, oldest] = this.prepared.entries().next().value as [string, DuckDBPreparedStatement];
      this.prepared.delete(oldestSql);
      oldest.destroySync();
    }
    return statement;
  }

  async read(sql: string, params: readonly DuckDBValue[]): Promise<DuckDBResultReader> {
    const statement = await this.statement(sql);
    statement.clearBindings();
    if (params.length > 0) statement.bind([...params]);
    return statement.runAndReadAll();
  }

  close(): void {
    for (const statement of this.prepared.values()) statement.destroySync();
    this.prepared.clear();
    this.connection.closeSync();
  }
}

export class ConnectionPool {
  private readonly idle: PooledConnection[];
  private readonly all: PooledConnection[];
  private readonly waiting: ((connection: PooledConnection) => void)[] = [];
  private closed = false;

  private constructor(connections: PooledConnection[]) {
    this.idle = [...connections];
    this.all = connections;
  }

  static async create(instance: DuckDBInstance, size: number): Promise<ConnectionPool> {
    const connections: PooledConnection[] = [];
    for (let i = 0; i < size; i++) connections.push(new PooledConnection(await instance.connect()));
    return new ConnectionPool(connections);
  }

  /** Runs a query to completion and returns all its rows. */
  async read(sql: string, params: readonly DuckDBValue[] = []): Promise<DuckDBResultReader> {
    const connection = await this.acquire();
    try {
      return await connection.read(sql, params);
    } finally {
      this.release(connection);
    }
  }

  /**
   * Runs a query that must finish by `deadline` (a `performance.now()` time): past it the query
   * is interrupted and OVER_BUDGET returned. With no time left it does not start at all.
   */
  async readBy(deadline: number, sql: string, params: readonly DuckDBValue[] = []): Promise<DuckDBResultReader | typeof OVER_BUDGET> {
    if (deadline - performance.now() <= 0) return OVER_BUDGET;
    const connection = await this.acquire();
    let fired = false;
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      this.release(connection);
      return OVER_BUDGET;
    }
    const timer = setTimeout(() => {
      fired = true;
      connection.connection.interrupt();
    }, remaining);
    try {
      return await connection.read(sql, params);
    } catch (err) {
      // Once the interrupt fired, the failure is the budget's, whatever DuckDB's wording.
      if (fired) return OVER_BUDGET;
      throw err;
    } finally {
      clearTimeout(timer);
      this.release(connection);
    }
  }

  private acquire(): Promise<PooledConnection> {
    if (this.closed) return Promise.reject(new Error('snapshot connection pool is closed'));
    const connection = this.idle.pop();
    if (connection) return Promise.resolve(connection);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(connection: PooledConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  /** Closes every connection; only called once no request holds the snapshot. */
  close(): void {
    this.closed = true;
    for (const connection of this.all) connection.close();
  }
}
