/**
 * The largest id or integer column value every database stores: ids are `serial` (int4) on PostgreSQL and
 * `integer` columns are 32-bit on PostgreSQL and MySQL. A larger number from a client is no row's and would
 * make the query fail (a 500): routes refuse or answer it before asking.
 */
export const largestRowId = 2_147_483_647;
