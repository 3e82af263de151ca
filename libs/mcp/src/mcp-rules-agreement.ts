import { getMetadataStorage } from 'class-validator';
import { constraintNameOf, type ValidationRule } from '#libs/common';

type JsonSchema = Record<string, unknown>;

/** Where @nestjs/swagger keeps a DTO property's @ApiProperty options (its `type` names a nested DTO). */
const API_PROPERTY_METADATA = 'swagger/apiModelProperties';

/** The schema a property stands for when zod writes it as "this or null" (`anyOf` with a null branch). */
function nonNull(schema: JsonSchema | undefined): JsonSchema | undefined {
  const branches = schema?.anyOf as JsonSchema[] | undefined;
  if (!branches) return schema;
  const rest = branches.filter((branch) => branch.type !== 'null');
  return rest.length === 1 ? rest[0] : schema;
}

/** The DTO class a property's rules validate nested (`@ValidateNested` with `@ApiProperty({ type: X })` or `[X]`). */
function nestedDtoOf(dto: abstract new (...args: never[]) => object, property: string): (new () => object) | undefined {
  const options = Reflect.getMetadata(API_PROPERTY_METADATA, dto.prototype, property) as { type?: unknown } | undefined;
  let type = options?.type;
  if (typeof type === 'function' && !/^class\b/.test(Function.prototype.toString.call(type))) type = (type as () => unknown)();
  if (Array.isArray(type)) type = type[0];
  return typeof type === 'function' && getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0 ? (type as new () => object) : undefined;
}

/**
 * Where an MCP tool's argument schema (what agents read) says something else than the REST DTO whose rules validate
 * the same arguments (`McpTool.rules`): a length, a bound, an enum, an integer, an item count. Both surfaces are built
 * from the same limits; this keeps them so as either is edited. Only what the DTO states is compared, on the
 * properties both declare.
 */
export function rulesDisagreement(dto: abstract new (...args: never[]) => object, schema: JsonSchema, path = ''): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false) as unknown as ValidationRule[];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const found: string[] = [];
  const byProperty = new Map<string, ValidationRule[]>();
  for (const rule of rules) byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
  for (const [property, own] of byProperty) {
    const argument = nonNull(properties[property]);
    if (!argument) continue;
    const at = `${path}${property}`;
    const expect = (key: string, wanted: unknown) => {
      const stated = key === 'enum' && Array.isArray(argument.enum) ? [...argument.enum].sort() : argument[key];
      if (JSON.stringify(stated) !== JSON.stringify(wanted)) found.push(`${at}: the DTO says ${key} ${JSON.stringify(wanted)}, the tool ${JSON.stringify(argument[key])}`);
    };
    for (const rule of own) {
      const [first, second] = (rule.constraints ?? []) as unknown[];
      switch (constraintNameOf(rule)) {
        case 'isLength':
          if (typeof first === 'number' && first > 0) expect('minLength', first);
          if (typeof second === 'number') expect('maxLength', second);
          break;
        case 'minLength':
          expect('minLength', first);
          break;
        case 'maxLength':
          expect('maxLength', first);
          break;
        case 'min':
          expect('minimum', first);
          break;
        case 'max':
          expect('maximum', first);
          break;
        case 'isInt':
          expect('type', 'integer');
          break;
        case 'isIn':
          expect('enum', [...(first as unknown[])].sort());
          break;
        case 'isEnum':
          expect('enum', Object.values(first as object).sort());
          break;
        case 'arrayMinSize':
          expect('minItems', first);
          break;
        case 'arrayMaxSize':
          expect('maxItems', first);
          break;
        case 'nestedValidation': {
          const nested = nestedDtoOf(dto, property);
          const items = nonNull((argument.items as JsonSchema | undefined) ?? argument);
          if (nested && items) found.push(...rulesDisagreement(nested, items, `${at}[].`));
          break;
        }
      }
    }
  }
  return found;
}
