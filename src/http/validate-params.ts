// Query parameters validated by ajv against the very schemas the OpenAPI document publishes.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TObject } from '@sinclair/typebox';
import type { ValidQuery } from '../openapi/parameters.js';
import { createError } from '../errors.js';

/** One ajv instance for request and stored-document validation: strict, with formats and defaults. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, useDefaults: true });
  addFormats.default(ajv);
  return ajv;
}

/** What a query parameter's schema says about it, as far as the converter and the error sentences need. */
type ParamSchema = { type?: unknown; enum?: unknown; pattern?: unknown };

/**
 * Query strings are text; the published schemas say integer or boolean. Convert only exact
 * spellings (`12`, not `012`, `1e1` or ` 12`; `true|false|1|0`) and leave anything else
 * as it came, so ajv rejects it against the published type. A repeated parameter stays
 * an array and fails the same way.
 */
function fromQueryString(value: unknown, schema: ParamSchema): unknown {
  if (typeof value !== 'string') return value;
  if (schema.type === 'integer' && /^(0|-?[1-9][0-9]{0,15})$/.test(value)) return Number(value);
  if (schema.type === 'boolean') {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
  }
  return value;
}

function explain(error: ErrorObject, schema: ParamSchema, value: unknown): string {
  if (Array.isArray(value)) return 'must be given once';
  switch (error.keyword) {
    case 'type':
      return schema.type === 'boolean' ? 'must be true, false, 1 or 0' : `must be ${String(schema.type)}`;
    case 'enum':
      return `must be one of: ${(schema.enum as string[]).join(', ')}`;
    case 'pattern':
      return String(schema.pattern).includes(',') ? 'must be a comma-separated list of ids without empty items or spaces' : 'is not in the expected format';
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * Types `raw` (a request's query) by a query schema (src/openapi/parameters.ts): its
 * parameters converted and checked, defaults filled in. Unknown parameters are ignored
 * (decision 3); the first bad one throws a 400 naming it.
 */
export function queryParser<T extends TObject>(schema: T, ajv: Ajv2020): (raw: Record<string, unknown>) => ValidQuery<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  const params = Object.entries(schema.properties as Record<string, ParamSchema>);
  return (raw) => {
    const typed: Record<string, unknown> = {};
    for (const [name, param] of params) {
      if (raw[name] !== undefined) typed[name] = fromQueryString(raw[name], param);
    }
    if (!validate(typed)) {
      const error = validate.errors![0]!;
      const name = error.instancePath.split('/')[1] ?? '';
      throw createError('invalid_parameter', {
        parameter: name,
        message: `Query parameter "${name}" ${explain(error, schema.properties[name] as ParamSchema, raw[name])}.`,
      });
    }
    // The validator has just checked `typed` against `schema` and filled in its defaults.
    return typed as ValidQuery<T>;
  };
}
