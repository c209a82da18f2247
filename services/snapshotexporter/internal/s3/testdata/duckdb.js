// Runs SQL statements with DuckDB for the docs tests: node duckdb.js <path of
// @duckdb/node-api> reads a JSON array of statements on stdin and prints a
// JSON array of results, {columns, types, rows} each, values as
// getRowsJson gives them (DOUBLE a number, BIGINT and VARCHAR strings, NULL
// null). The first failing statement ends it with its error on stderr and
// exit status 1.
'use strict';
const { DuckDBInstance } = require(process.argv[2]);

async function main() {
  const statements = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const results = [];
  for (const [i, sql] of statements.entries()) {
    let r;
    try {
      r = await conn.runAndReadAll(sql);
    } catch (e) {
      process.stderr.write(`statement ${i + 1} failed: ${e.message}\n${sql}\n`);
      process.exit(1);
    }
    results.push({ columns: r.columnNames(), types: r.columnTypes().map(String), rows: r.getRowsJson() });
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
