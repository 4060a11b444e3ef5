// Checks a real response against the OpenAPI document the server itself serves: status documented, headers present, body valid.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface ObservedResponse {
  method: string;
  /** Request path as sent, query string allowed. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text. */
  text: string;
}

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { responses: Record<string, unknown>; headers: Record<string, unknown> };
};

interface ResponseObject {
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: unknown }>;
  content?: Record<string, { schema: unknown }>;
}

const DOC_ID = 'https://api.test/openapi.json';
const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A validator bound to one served document. `check()` throws an Error describing every
 * mismatch, so the request helper of each test can call it on every response it gets.
 * Routes the document does not describe may only answer with the documented error
 * shape (404 unknown route, 405, 400 undecodable URL).
 */
export function createOpenApiValidator(doc: unknown) {
  const d = doc as Doc;
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, DOC_ID);
  const cache = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let v = cache.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      cache.set(pointer, v);
    }
    return v;
  };

  const templates = Object.keys(d.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  function resolve<T>(obj: unknown): { value: T; pointer: string } | undefined {
    const ref = (obj as { $ref?: string } | undefined)?.$ref;
    if (!ref) return undefined;
    const parts = ref.replace(/^#\//, '').split('/');
    let value: unknown = doc;
    for (const p of parts) value = (value as Record<string, unknown>)?.[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    return { value: value as T, pointer: ref.slice(1) };
  }

  return {
    /** The path template a request path maps to (the `/api/*` alias folded into `/api/v1/*`), if any. */
    templateOf(path: string): string | undefined {
      let p = path.split('?')[0]!;
      if (/^\/api(\/|$)/.test(p) && !/^\/api\/v\d+(\/|$)/.test(p)) p = `/api/v1${p.slice(4)}`;
      return templates.find((t) => t.regex.test(p))?.template;
    },

    check(res: ObservedResponse): void {
      const problems: string[] = [];
      if (res.method === 'OPTIONS') {
        // Not an operation of the document: the API answers it the same everywhere (204, Allow, no body).
        if (res.status !== 204 || res.text !== '' || !res.headers.allow) {
          throw new Error(`OPTIONS ${res.path}: expected 204 with Allow and no body, got ${res.status}`);
        }
        return;
      }
      const template = this.templateOf(res.path);
      let response: ResponseObject;
      let pointer: string;
      if (template && res.status !== 405 && d.paths[template]!.get) {
        const base = `/paths/${escapePointer(template)}/get/responses/${res.status}`;
        const raw = d.paths[template]!.get!.responses[String(res.status)];
        if (!raw) throw new Error(`${res.method} ${res.path}: status ${res.status} is not documented for ${template}`);
        const ref = resolve<ResponseObject>(raw);
        response = ref ? ref.value : (raw as ResponseObject);
        pointer = ref ? ref.pointer : base;
      } else {
        if (![400, 404, 405, 429, 503].includes(res.status)) {
          throw new Error(`${res.method} ${res.path}: undocumented route answered ${res.status}`);
        }
        response = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
        pointer = '';
      }

      for (const [name, h] of Object.entries(response.headers ?? {})) {
        const header = resolve<{ required?: boolean; schema?: unknown }>(h)?.value ?? h;
        const value = res.headers[name.toLowerCase()];
        if (header.required && value === undefined) problems.push(`missing required header ${name}`);
        if (value !== undefined && header.schema) {
          const headerRef = (h as { $ref?: string }).$ref;
          const validate = headerRef ? validatorAt(`${headerRef.slice(1)}/schema`) : ajv.compile(header.schema as object);
          for (const v of Array.isArray(value) ? value : [value]) {
            if (!validate(v)) problems.push(`header ${name}="${v}": ${ajv.errorsText(validate.errors)}`);
          }
        }
      }

      const noBody = res.method === 'HEAD' || res.status === 204;
      if (!noBody) {
        const type = String(res.headers['content-type'] ?? '');
        if (!type.startsWith('application/json')) problems.push(`content-type is "${type}", not application/json`);
        let body: unknown;
        try {
          body = JSON.parse(res.text);
        } catch {
          problems.push(`body is not JSON: ${res.text.slice(0, 120)}`);
        }
        if (body !== undefined) {
          const validate = pointer ? validatorAt(`${pointer}/content/application~1json/schema`) : validatorAt('/components/schemas/Error');
          if (!validate(body)) {
            problems.push(`body does not match the schema: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 2000)}`);
          }
        }
      }
      if (problems.length > 0) {
        throw new Error(`${res.method} ${res.path} → ${res.status} violates the OpenAPI document:\n  ${problems.join('\n  ')}`);
      }
    },
  };
}

export type OpenApiValidator = ReturnType<typeof createOpenApiValidator>;
