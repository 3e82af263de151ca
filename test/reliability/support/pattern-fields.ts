import { getMetadataStorage } from 'class-validator';
import { constraintNameOf, constraintRank, orderConstraintsCheapFirst, type ValidationRule } from '#libs/common';

/**
 * The pattern-validated fields of both services' REST routes, found in the code: every DTO property
 * with a rule that is neither a type nor a size check (class-validator's metadata: @Matches,
 * @IsEmail, @IsISO8601, @IsUUID, custom rules...), and the documented routes whose body holds it.
 * Both apps must be loaded (started) before patternFields() is called.
 */
type Json = Record<string, any>;

export interface PatternField {
  dto: string;
  /** Every property the DTO validates (to recognise it when the document writes it as a oneOf). */
  dtoProperties: string[];
  target: new () => object;
  property: string;
  /** The rules that are neither type nor size checks, in running order. */
  patternRules: string[];
  /** Every rule of the property, in running order. */
  rules: string[];
}

/**
 * Every DTO property of both apps (the apps are loaded) with a pattern-like rule, from class-validator's metadata.
 * A DTO's rules include those it inherits (class-validator validates them too); a base class is audited through
 * the DTOs that extend it, since routes take those (an abstract base has no schema of its own).
 */
export function patternFields(): PatternField[] {
  orderConstraintsCheapFirst();
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, ValidationRule[]> };
  const targets = [...storage.validationMetadatas.keys()].filter((target): target is new () => object => typeof target === 'function');
  const isExtended = (target: new () => object) => targets.some((other) => other.prototype instanceof target);
  const fields: PatternField[] = [];
  for (const target of targets) {
    if (isExtended(target)) continue;
    const byProperty = new Map<string, ValidationRule[]>();
    for (let owner: unknown = target; typeof owner === 'function' && owner !== Function.prototype; owner = Object.getPrototypeOf(owner)) {
      for (const rule of storage.validationMetadatas.get(owner) ?? []) byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
    }
    for (const [property, own] of byProperty) {
      const custom = own.filter((rule) => rule.type === 'customValidation').map(constraintNameOf);
      const patternRules = custom.filter((name) => constraintRank(name) === 2);
      if (patternRules.length > 0) fields.push({ dto: target.name, dtoProperties: [...byProperty.keys()].sort(), target, property, patternRules, rules: custom });
    }
  }
  return fields.sort((a, b) => `${a.dto}.${a.property}`.localeCompare(`${b.dto}.${b.property}`));
}

export interface Route {
  service: 'todo-api' | 'feedback-export';
  operationId: string;
  method: string;
  path: string;
  security: string[];
  /** Where the field sits in the body: property names, `[]` for an array item. */
  bodyPath: string[];
  /** Set when the field is a query parameter of the route (a query DTO), not in its body. */
  queryParameter?: string;
  pathParams: Json[];
}

/** The properties of a schema's `oneOf` branches together ("exactly one of" a DTO's properties, e.g. beta access). */
function oneOfProperties(document: Json, schema: Json): string[] {
  const branches: Json[] = (schema.oneOf ?? []).map((branch: Json) => (branch.$ref ? document.components.schemas[String(branch.$ref).replace('#/components/schemas/', '')] : branch));
  return [...new Set(branches.flatMap((branch) => Object.keys(branch?.properties ?? {})))].sort();
}

/**
 * The JSON paths from a schema to properties of the DTO: the DTO's class name is its OpenAPI schema
 * name, or the document writes the DTO as a `oneOf` of branches holding its properties between them.
 */
function pathsTo(document: Json, schema: Json | undefined, field: PatternField, seen: Set<string>, path: string[] = []): string[][] {
  if (!schema) return [];
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    if (name === field.dto) return [path];
    if (seen.has(name)) return [];
    return pathsTo(document, document.components.schemas[name], field, new Set([...seen, name]), path);
  }
  if (schema.oneOf && oneOfProperties(document, schema).join() === field.dtoProperties.join()) return [path];
  const found: string[][] = [];
  for (const inner of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) found.push(...pathsTo(document, inner, field, seen, path));
  if (schema.items) found.push(...pathsTo(document, schema.items, field, seen, [...path, '[]']));
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) found.push(...pathsTo(document, property, field, seen, [...path, name]));
  return found;
}

export function routesOf(documents: Record<Route['service'], Json>, field: PatternField): Route[] {
  const routes: Route[] = [];
  for (const [service, document] of Object.entries(documents) as [Route['service'], Json][]) {
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        // A query DTO: the document spreads its properties as query parameters; the route takes them all.
        const query = (operation.parameters ?? []).filter((parameter: Json) => parameter.in === 'query').map((parameter: Json) => String(parameter.name));
        if (query.includes(field.property) && field.dtoProperties.every((property) => query.includes(property))) {
          routes.push({
            service,
            operationId: operation.operationId,
            method: method.toUpperCase(),
            path,
            security: (operation.security ?? []).flatMap((entry: Json) => Object.keys(entry)),
            bodyPath: [],
            queryParameter: field.property,
            pathParams: (operation.parameters ?? []).filter((parameter: Json) => parameter.in === 'path'),
          });
        }
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        for (const bodyPath of pathsTo(document, schema, field, new Set())) {
          routes.push({
            service,
            operationId: operation.operationId,
            method: method.toUpperCase(),
            path,
            security: (operation.security ?? []).flatMap((entry: Json) => Object.keys(entry)),
            bodyPath: [...bodyPath, field.property],
            pathParams: (operation.parameters ?? []).filter((parameter: Json) => parameter.in === 'path'),
          });
        }
      }
    }
  }
  return routes;
}

/** A body holding `value` at `path` (arrays of one item). */
export function bodyWith(path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return head === '[]' ? [bodyWith(rest, value)] : { [head]: bodyWith(rest, value) };
}

/** The field's schema in the document of the route (example, format, pattern), for its valid samples. */
export function schemaOf(documents: Record<Route['service'], Json>, field: PatternField): Json {
  for (const document of Object.values(documents)) {
    const property = document.components?.schemas?.[field.dto]?.properties?.[field.property];
    if (property) return property;
  }
  return {};
}

export function samplesOf(schema: Json): unknown[] {
  return [schema.example, ...(schema.enum ?? [])];
}
