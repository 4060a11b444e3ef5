// One shape, two descriptions: the SearchResult of the served OpenAPI document and the MCP search tool's output schema name the same fields, the same required ones and the same types.
import { expect } from 'chai';
import { useApiWorld } from '../support/api-world.js';

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: unknown[]; anyOf?: Schema[] };

/** The shape of a schema as a comparable tree: types, required fields and the fields of objects and array items, references followed. */
function outline(schema: Schema, resolve: (ref: string) => Schema): unknown {
  if (schema.$ref) return outline(resolve(schema.$ref), resolve);
  // `type: [t, 'null']` and `anyOf: [{type: t}, {type: 'null'}]` say the same.
  if (schema.anyOf && schema.anyOf.every((s) => s.type && !s.properties && !s.items)) {
    return outline(
      {
        ...schema,
        anyOf: undefined,
        type: schema.anyOf.flatMap((s) => ([] as string[]).concat(s.type!)),
        ...Object.assign({}, ...schema.anyOf.filter((s) => s.enum).map((s) => ({ enum: s.enum }))),
      },
      resolve,
    );
  }
  const types = ([] as string[]).concat(schema.type ?? []).sort();
  const node: Record<string, unknown> = { types };
  if (schema.enum) node.enum = [...schema.enum].sort();
  if (schema.properties) {
    node.required = [...(schema.required ?? [])].sort();
    node.properties = Object.fromEntries(
      Object.entries(schema.properties)
        .map(([name, sub]) => [name, outline(sub, resolve)])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  }
  if (schema.items) node.items = outline(schema.items, resolve);
  return node;
}

describe('shapes: the OpenAPI document and the MCP tool describe SearchResult alike', function () {
  this.timeout(30_000);
  const world = useApiWorld();

  it('names the same fields, required fields and types at every depth', async function () {
    const doc = (await world.api.request('/api/v1/openapi.json')).body as { components: { schemas: Record<string, Schema> } };
    const fromDoc = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')]!;
    const res = await fetch(`${world.api.baseUrl}/channels/alpha/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const { result } = (await res.json()) as { result: { tools: { name: string; outputSchema: Schema }[] } };
    const tool = result.tools.find((t) => t.name === 'search')!;
    const noRefs = () => {
      throw new Error('the tool schema is self-contained');
    };
    const openapi = outline(fromDoc('#/components/schemas/SearchResult'), fromDoc);
    const mcp = outline(tool.outputSchema, noRefs);
    expect(mcp).to.deep.equal(openapi);
    // And the outline is not empty: the segments' citation fields are in both.
    const segment = (openapi as { properties: { episodes: { items: { properties: { segments: { items: { properties: Record<string, unknown> } } } } } } }).properties.episodes.items
      .properties.segments.items.properties;
    expect(Object.keys(segment)).to.include.members(['segmentId', 'text', 'startMs', 'endMs', 'url', 'deepLink', 'matchedVia', 'highlights', 'speaker']);
  });
});
