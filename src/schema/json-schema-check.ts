/** What a JSON Schema engine gives back for one schema: a check of a value. */

/** The dialects Tessera accepts: 2020-12 (the default) and draft-07. */
export type JsonSchemaDialect = '2020-12' | 'draft-07';

/** `undefined` when the value matches, else why not (e.g. `/quantity must be >= 1`). */
export type JsonSchemaCheck = (value: unknown) => string | undefined;
