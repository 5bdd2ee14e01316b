/**
 * A statement for the operator to run by hand (printed on one stderr line when a write was given up): the
 * statement with `?` placeholders, then ` with parameters ` and its parameters as a JSON array, in order.
 * No value is spliced into the SQL: an upstream's id is whatever the upstream chose, and quote doubling is
 * not enough where a backslash escapes (MySQL's default), nor does it keep a newline off the line. JSON
 * writes quotes, backslashes and control characters escaped, so the line stays one line and `JSON.parse`
 * gives back each value exactly. The `?` placeholders are MySQL's and SQLite's; PostgreSQL's are `$1`, `$2`,
 * … in the same order.
 */
export function operatorStatement(statement: string, parameters: readonly unknown[]): string {
  return `${statement} with parameters ${JSON.stringify(parameters)}`;
}
