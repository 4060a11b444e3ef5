// An operation of the table (src/openapi/operations.ts) with its handler, typed by the operation's schemas: the
// handler gets the path parameters and the validated query as they declare, and must answer the success body.
import type { Request, RequestHandler } from 'express';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { OPERATIONS, type OperationDef, type PathParams } from '../openapi/operations.js';
import type { ValidQuery } from '../openapi/parameters.js';
import { queryParser } from './validate-params.js';

/** What a handler of an operation gets: its path parameters and its query, validated, with defaults filled in. */
export interface OperationInput<P extends PathParams, Q extends TObject> {
  params: Static<P>;
  query: ValidQuery<Q>;
}

/**
 * The handler of an operation: the request is there for what the chain attached to it (the principal, the store
 * reads, the log); the answer is the operation's success body, sent as JSON.
 */
export type OperationHandler<P extends PathParams, Q extends TObject, R extends TSchema> = (input: OperationInput<P, Q>, req: Request) => Static<R> | Promise<Static<R>>;

/** An operation and its handler, their types erased for the app's one registration loop. */
export interface Route {
  operation: OperationDef;
  handler: OperationHandler<PathParams, TObject, TSchema>;
}

/** Binds a handler to its operation; the handler's input and answer are typed by the operation's schemas. */
export function route<P extends PathParams, Q extends TObject, R extends TSchema>(operation: OperationDef<P, Q, R>, handler: NoInfer<OperationHandler<P, Q, R>>): Route {
  // Sound by construction: `routeHandler` gives the handler the params of this operation's path and the query parsed by
  // this operation's schema, nothing else.
  return { operation, handler: handler as unknown as Route['handler'] };
}

/**
 * The Express handler of a route: the query validated against its operation's schema (a 400 naming the first bad
 * parameter, see `queryParser`), then the handler with its typed input, its answer sent as JSON.
 */
export function routeHandler({ operation, handler }: Route, ajv: Ajv2020): RequestHandler {
  const parse = queryParser(operation.query, ajv);
  return async (req, res) => {
    const query = parse(req.query as Record<string, unknown>);
    // A `{name}` segment captures one string; only wildcards, which no operation's path has, capture arrays.
    res.json(await handler({ params: req.params as Record<string, string>, query }, req));
  };
}

/** The routes in the table's order, each operation with exactly one; throws at start-up otherwise. */
export function everyOperationOnce(routes: readonly Route[]): Route[] {
  const strays = routes.filter((r) => !OPERATIONS.includes(r.operation));
  if (strays.length > 0) throw new Error(`routes of operations not in the table: ${strays.map((r) => r.operation.operationId).join(', ')}`);
  return OPERATIONS.map((op) => {
    const bound = routes.filter((r) => r.operation === op);
    if (bound.length !== 1) throw new Error(`operation ${op.operationId} has ${bound.length} routes, not one`);
    return bound[0]!;
  });
}
