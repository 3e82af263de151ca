import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

/**
 * OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes `anyOf: [null, schema]`
 * (so `allOf` branches are not applied to null), and component references point into
 * one registered document. `closed`: an object with listed properties allows no others
 * (for schemas without `allOf`, to catch an undocumented field).
 */
function convert(schema: unknown, closed = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => convert(item, closed));
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable' || key === 'example' || key === 'examples') continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace('#/components/schemas/', 'oas#/definitions/');
    else if (key === 'properties' && typeof value === 'object' && value) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, closed)]));
    else if (key === 'discriminator') continue; // OpenAPI's hint; `oneOf` alone decides
    else out[key] = convert(value, closed);
  }
  if (closed && source.properties && source.additionalProperties === undefined) out.additionalProperties = false;
  if (source.nullable === true) return { anyOf: [{ type: 'null' }, out] };
  return out;
}

/** Validators for the documented JSON response bodies of an OpenAPI document. */
export class ResponseSchemas {
  private readonly ajv: Ajv;
  private readonly closedAjv: Ajv;
  private readonly cache = new Map<string, ValidateFunction | null | undefined>();

  constructor(private readonly document: Json) {
    const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
    const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
    const ajvOf = (closed: boolean): Ajv => {
      const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
      (addFormats as unknown as (ajv: Ajv) => void)(ajv);
      ajv.addSchema({ $id: 'oas', definitions: convert(components, closed) as Json });
      return ajv;
    };
    this.ajv = ajvOf(false);
    this.closedAjv = ajvOf(true);
  }

  /** The validator of a documented response body of another media type (the item schema of `text/event-stream`...), objects closed: no property the schema does not list. */
  closedValidatorOf(schema: unknown): ValidateFunction {
    return this.closedAjv.compile(convert(schema, true) as Json);
  }

  /** The validator of a documented JSON response, or null when the status is documented without a JSON body, or undefined when it is not documented. */
  validatorFor(path: string, method: string, status: number): ValidateFunction | null | undefined {
    const key = `${method} ${path} ${status}`;
    if (this.cache.has(key)) return this.cache.get(key);
    const operation = ((this.document.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
    const response = (operation?.responses as Json | undefined)?.[String(status)] as Json | undefined;
    let validator: ValidateFunction | null | undefined;
    if (!response) validator = undefined;
    else {
      const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
      validator = schema ? this.ajv.compile(convert(schema) as Json) : null;
    }
    this.cache.set(key, validator);
    return validator;
  }
}
