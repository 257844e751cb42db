/**
 * Errors of the filter language. They carry only the message text; the HTTP layer
 * (src/crud/list-query.ts) maps them to INVALID_FILTER / INVALID_SORT_IDENTIFIER.
 */

/** Any rejected filter: syntax, unknown symbol, type mismatch or a limit of this implementation. */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}

/** The text does not follow the grammar. `line` is 1-based and `column` 0-based, as ANTLR reports them. */
export class FilterSyntaxError extends FilterError {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly symbol: string,
    message?: string,
  ) {
    super(message ?? `Unexpected symbol: "${symbol}" at line: ${line} column: ${column}. line: ${line}, column: ${column}, symbol: ${symbol}`);
    this.name = 'FilterSyntaxError';
  }
}

/** A sort field that is unknown, not public or not sortable (a set). */
export class FilterSortError extends FilterError {
  constructor(message: string) {
    super(message);
    this.name = 'FilterSortError';
  }
}
