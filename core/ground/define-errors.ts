// One factory for every error catalogue (Fastify's `createError`, made once per catalogue rather than once per code):
// a catalogue is `{ code: { message, status?, transient? } }`, and `defineErrors` makes its error class and `describe`.

/**
 * One code of a catalogue. `message`: the default sentence (a builder of it, for catalogues whose sentence always
 * names something); `status`: the HTTP status it answers with; `transient`: a retry with backoff may succeed.
 */
export interface ErrorEntry {
  readonly message: string | ((...args: never[]) => string);
  readonly status?: number;
  readonly transient?: boolean;
}

/** Codes and their entries. Codes never change meaning. */
export type ErrorCatalogue = Readonly<Record<string, ErrorEntry>>;

/** The codes of a catalogue: `type FetchErrorCode = ErrorCode<typeof FETCH_ERRORS>`. */
export type ErrorCode<C extends ErrorCatalogue> = Extract<keyof C, string>;

/** What one error may say beyond its code and message; each overrides the entry's value where it has one. */
export interface CatalogueErrorOptions {
  cause?: unknown;
  /** Appended to the message: `<message>: <detail>`. */
  detail?: string | undefined;
  /** The HTTP status: the one answered (API), or the one the other side answered (a fetch, a delivery). */
  status?: number | undefined;
  transient?: boolean | undefined;
  /** When the other side asked us to come back (`Retry-After`), in ms. */
  retryAfterMs?: number | undefined;
}

/** The base an error class may extend instead of `Error` (BullMQ's `UnrecoverableError`, for one). */
export type ErrorBase = new (message?: string, options?: ErrorOptions) => Error;

/**
 * The error class of `catalogue`, named `name` (`new XError(code, message?, options?)`: the message defaults to the
 * entry's), and `describe(err)`, the sentence a person reads for one of its errors: `words(err)` where it words one
 * differently, else the entry's message.
 */
export function defineErrors<C extends ErrorCatalogue>(
  name: string,
  catalogue: C,
  { Base = Error, words }: { Base?: ErrorBase; words?: (err: { code: ErrorCode<C>; status?: number }) => string | undefined } = {},
) {
  class CatalogueError extends Base {
    readonly code: ErrorCode<C>;
    readonly transient: boolean;
    declare readonly status?: number;
    declare readonly retryAfterMs?: number;

    constructor(code: ErrorCode<C>, message?: string, { cause, detail, status, transient, retryAfterMs }: CatalogueErrorOptions = {}) {
      const entry = catalogue[code]!;
      const text = message ?? (typeof entry.message === 'string' ? entry.message : code);
      super(detail ? `${text}: ${detail}` : text, cause === undefined ? undefined : { cause });
      // A base that takes no options (UnrecoverableError) drops the cause: keep it as Error would, not enumerable.
      if (cause !== undefined && !Object.hasOwn(this, 'cause')) Object.defineProperty(this, 'cause', { value: cause, writable: true, configurable: true });
      this.name = name;
      this.code = code;
      this.transient = transient ?? entry.transient ?? false;
      const answered = status ?? entry.status;
      if (answered !== undefined) this.status = answered;
      if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    }
  }

  const describe = (err: CatalogueError): string => {
    const entry = catalogue[err.code]!;
    return words?.(err) ?? (typeof entry.message === 'string' ? entry.message : err.message);
  };

  return { Error: CatalogueError, describe };
}
