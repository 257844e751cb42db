/** ZitiQL, OpenZiti's filter language: hand-written parser and a compiler to parameterised SQLite SQL. */
export * from './ast.js';
export { FilterError, FilterSortError, FilterSyntaxError } from './errors.js';
export { MAX_FILTER_LENGTH, MAX_NESTING_DEPTH, parseFilter, parseSortList } from './parser.js';
export {
  MAX_FILTER_PARAMS,
  MAX_FILTER_PREDICATES,
  MAX_SORT_FIELDS,
  compileQuery,
  compileSort,
  compileWhere,
  type FieldMap,
} from './compiler.js';
export { commonFields, constantField, jsonArraySet, linkedSet } from './fields.js';
