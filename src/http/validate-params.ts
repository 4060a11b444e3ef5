// Query parameters validated by ajv against the very schemas the OpenAPI document publishes.
import type { RequestHandler } from 'express';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OperationDef } from '../openapi/operations.js';
import type { ParameterDef } from '../openapi/parameters.js';
import { createError } from '../errors.js';

/** One ajv instance for request and stored-document validation: strict, with formats and defaults. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, useDefaults: true });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Query strings are text; the published schemas say integer or boolean. Convert only exact
 * spellings (`12`, not `012`, `1e1` or ` 12`; `true|false|1|0`) and leave anything else
 * as it came, so ajv rejects it against the published type. A repeated parameter stays
 * an array and fails the same way.
 */
function fromQueryString(value: unknown, schema: ParameterDef['schema']): unknown {
  if (typeof value !== 'string') return value;
  if (schema.type === 'integer' && /^(0|-?[1-9][0-9]{0,15})$/.test(value)) return Number(value);
  if (schema.type === 'boolean') {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
  }
  return value;
}

function explain(error: ErrorObject, def: ParameterDef, value: unknown): string {
  if (Array.isArray(value)) return 'must be given once';
  switch (error.keyword) {
    case 'type':
      return def.schema.type === 'boolean' ? 'must be true, false, 1 or 0' : `must be ${String(def.schema.type)}`;
    case 'enum':
      return `must be one of: ${(def.schema.enum as string[]).join(', ')}`;
    case 'pattern':
      return String(def.schema.pattern).includes(',') ? 'must be a comma-separated list of ids without empty items or spaces' : 'is not in the expected format';
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * Types `raw` (a request's query) for an operation: its parameters converted and checked,
 * defaults filled in. Unknown parameters are ignored (decision 3); the first bad one throws
 * a 400 naming it.
 */
export function queryParamsParser(op: OperationDef, ajv: Ajv2020): (raw: Record<string, unknown>) => Record<string, unknown> {
  const defs = op.parameters.filter((p) => p.in === 'query');
  const validate: ValidateFunction = ajv.compile({
    type: 'object',
    properties: Object.fromEntries(defs.map((d) => [d.name, d.schema])),
  });
  return (raw) => {
    const typed: Record<string, unknown> = {};
    for (const def of defs) {
      if (raw[def.name] !== undefined) typed[def.name] = fromQueryString(raw[def.name], def.schema);
    }
    if (!validate(typed)) {
      const error = validate.errors![0]!;
      const name = error.instancePath.split('/')[1] ?? '';
      const def = defs.find((d) => d.name === name)!;
      throw createError('invalid_parameter', {
        parameter: name,
        message: `Query parameter "${name}" ${explain(error, def, raw[name])}.`,
      });
    }
    return typed;
  };
}

/** Validates and types `req.query` for an operation into `req.validQuery` (see {@link queryParamsParser}). */
export function validateParams(op: OperationDef, ajv: Ajv2020): RequestHandler {
  const parse = queryParamsParser(op, ajv);
  return (req, _res, next) => {
    req.validQuery = parse(req.query as Record<string, unknown>);
    next();
  };
}
