// The one rule for logging a failed request or search, shared by the JSON errors, the pages and the MCP tool.
import { toApiError, type ApiError } from '../errors.js';
import type { Logger } from '../../core/ground/logger.js';

/**
 * Logs `err` by what it means: a 500 is our bug (the full error); any other 5xx is an outage of something we depend on
 * (a warning with its cause); a 4xx is the caller's and is not logged here (the access log has it). Returns the error
 * as the API answers it.
 */
export function logFailure(log: Logger, err: unknown, message: string): ApiError {
  const error = toApiError(err);
  if (error.status === 500) log.error({ err, code: error.code }, message);
  else if (error.status > 500) log.warn({ err: error.cause ?? error, code: error.code }, message);
  return error;
}
